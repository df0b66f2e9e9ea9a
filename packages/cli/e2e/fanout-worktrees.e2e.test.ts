import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeGitRepo, runGit, runUwf, type TempHome, tempHome } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

/**
 * A fan-out whose child workflow says `worktree: true`: every child gets its own git worktree
 * on its own branch, made from the parent's checkout, so parallel children never edit one
 * checkout. Script steps only (no agent): each child writes and commits a file named after its
 * item.
 */

const ITEMS = ["alpha", "beta", "gamma"];

/** The child's command: write `<item>.txt` in its cwd and commit it on its branch. */
const CHILD = `const { execFileSync } = require("node:child_process");
const item = process.env.UWF_TASK.split(" ").pop();
if (require("node:fs").existsSync(${JSON.stringify("FLOWS")} + "/fail-" + item)) process.exit(3);
require("node:fs").writeFileSync(item + ".txt", process.cwd() + "\\n");
execFileSync("git", ["add", item + ".txt"]);
execFileSync("git", ["commit", "--quiet", "-m", "child " + item]);
console.log(JSON.stringify({ $status: "done", item, cwd: process.cwd() }));`;

const PLAN = `console.log(JSON.stringify({ $status: "ready", items: ${JSON.stringify(
  ITEMS.map((name) => ({ name, dir: "src" })),
)} }));`;

interface Worktree {
  path: string;
  branch: string;
  repo: string;
  base: string;
  present?: boolean;
}

interface Show {
  status: string;
  cwd: string;
  head: string;
  worktree: Worktree | null;
  children?: { thread: string; status: string }[];
}

describe("fan-out children with worktree: true", () => {
  let temp: TempHome;
  let repo: string;
  let flows: string;
  const git = (cwd: string, ...args: string[]) => runGit(temp.home, cwd, ...args);
  const uwf = (args: string[]) => runUwf(args, { home: temp.home, cwd: repo });
  const json = async <T>(args: string[]): Promise<T> => {
    const run = await uwf([...args, "--format", "json"]);
    if (run.code !== 0) throw new Error(`uwf ${args.join(" ")}: ${run.code}\n${run.stderr}`);
    return JSON.parse(run.stdout) as T;
  };
  const node = JSON.stringify(process.execPath);
  /** The `edit` role: child.cjs writes and commits its item's file. */
  const editRole = () => `  edit:
    run: [${node}, ${JSON.stringify(join(flows, "child.cjs"))}]
    frontmatter:
      type: object
      required: [$status, item, cwd]
      properties:
        $status: { const: done }
        item: { type: string }
        cwd: { type: string }
`;
  /** plan.cjs lists ITEMS, `fanout` (a YAML flow mapping) runs them, `collect` joins them. */
  const fanEdit = (name: string, fanout: string, roles = "") => `name: ${name}
roles:
  plan:
    run: [${node}, ${JSON.stringify(join(flows, "plan.cjs"))}]
    frontmatter:
      type: object
      required: [$status, items]
      properties:
        $status: { const: ready }
        items:
          type: array
          items:
            type: object
            required: [name, dir]
            properties: { name: { type: string }, dir: { type: string } }
${roles}  collect:
    join: true
    frontmatter:
      type: object
      required: [$status, results]
      properties:
        $status: { const: done }
        results: { type: array }
graph:
  $START:
    new: { role: plan, prompt: "Plan." }
    resume: { role: plan, prompt: "Plan again." }
  plan:
    ready:
      role: collect
      prompt: "edit {{{item.name}}}"
      location: "{{{item.dir}}}"
      fanout: ${fanout}
  collect:
    done: { role: $END, prompt: "All done." }
`;

  beforeEach(() => {
    temp = tempHome();
    repo = makeGitRepo(temp.home, join(temp.home, "project"), { "src/index.js": "export {};\n" });
    flows = join(temp.home, "flows");
    mkdirSync(flows);
    writeFileSync(join(flows, "plan.cjs"), PLAN);
    writeFileSync(join(flows, "child.cjs"), CHILD.replace('"FLOWS"', JSON.stringify(flows)));
    writeFileSync(
      join(flows, "edit-one.yaml"),
      `name: edit-one
worktree: true
roles:
${editRole()}graph:
  $START:
    new: { role: edit, prompt: "Edit." }
    resume: { role: edit, prompt: "Edit again." }
  edit:
    done: { role: $END, prompt: "Done." }
`,
    );
    writeFileSync(
      join(flows, "fan-edit.yaml"),
      fanEdit("fan-edit", '{ over: "{{{items}}}", workflow: edit-one.yaml, concurrency: 3 }'),
    );
  });
  afterEach(() => temp.cleanup());

  it("a role: fan-out with worktree: true gives each child its own worktree too", async () => {
    const base = git(repo, "rev-parse", "HEAD");
    const file = join(flows, "fan-edit-role.yaml");
    writeFileSync(
      file,
      fanEdit(
        "fan-edit-role",
        '{ over: "{{{items}}}", role: edit, worktree: true, concurrency: 3 }',
        editRole(),
      ),
    );
    const { thread } = await json<{ thread: string }>(["thread", "start", file, "-p", "Edit all"]);
    expect((await json<{ status: string }>(["thread", "exec", thread, "-c", "3"])).status).toBe(
      "completed",
    );
    const parent = await json<Show>(["thread", "show", thread]);
    const join_ = await json<{
      outputValue: { results: { thread: string; output: { item: string } }[] };
    }>(["step", "show", parent.head]);
    const results = join_.outputValue.results;
    expect(results.map((r) => r.output.item)).toEqual(ITEMS);
    const paths = new Set<string>();
    for (const [index, result] of results.entries()) {
      const child = await json<Show>(["thread", "show", result.thread]);
      expect(child.worktree).toMatchObject({ branch: `uwf/${result.thread}`, repo, base });
      paths.add(child.worktree!.path);
      expect(git(repo, "log", "-1", "--format=%s", child.worktree!.branch)).toBe(
        `child ${ITEMS[index]}`,
      );
    }
    expect(paths.size).toBe(ITEMS.length);
    expect(git(repo, "rev-parse", "HEAD")).toBe(base);
    expect(git(repo, "status", "--porcelain")).toBe("");
  });

  it("gives each child its own worktree and branch; each commit is on its child's branch only", async () => {
    const base = git(repo, "rev-parse", "HEAD");
    const { thread } = await json<{ thread: string }>([
      "thread",
      "start",
      join(flows, "fan-edit.yaml"),
      "-p",
      "Edit all",
    ]);
    const exec = await json<{ status: string }>(["thread", "exec", thread, "-c", "3"]);
    expect(exec.status).toBe("completed");

    const parent = await json<Show>(["thread", "show", thread]);
    expect(parent.worktree).toBeNull();
    const join_ = await json<{
      outputValue: { results: { thread: string; output: { item: string; cwd: string } }[] };
    }>(["step", "show", parent.head]);
    const results = join_.outputValue.results;
    expect(results.map((r) => r.output.item)).toEqual(ITEMS);

    const paths = new Set<string>();
    for (const [index, result] of results.entries()) {
      const child = await json<Show>(["thread", "show", result.thread]);
      const worktree = child.worktree!;
      expect(worktree).toMatchObject({
        branch: `uwf/${result.thread}`,
        repo,
        base,
        path: join(temp.home, "worktrees", "project", result.thread),
      });
      paths.add(worktree.path);
      // The item's location is applied inside the child's own worktree.
      expect(child.cwd).toBe(join(worktree.path, "src"));
      expect(result.output.cwd).toBe(child.cwd);
      // The child's file is committed on its branch, and only its own.
      const files = git(repo, "ls-tree", "--name-only", worktree.branch, "src/").split("\n");
      expect(files.sort()).toEqual([`src/${ITEMS[index]}.txt`, "src/index.js"]);
      expect(git(repo, "log", "-1", "--format=%s", worktree.branch)).toBe(`child ${ITEMS[index]}`);
    }
    expect(paths.size).toBe(ITEMS.length);

    // The parent's checkout is untouched: same HEAD, nothing written, nothing uncommitted.
    expect(git(repo, "rev-parse", "HEAD")).toBe(base);
    expect(git(repo, "status", "--porcelain")).toBe("");
    for (const item of ITEMS) expect(existsSync(join(repo, "src", `${item}.txt`))).toBe(false);

    // A child's worktree is cleaned up like any thread's: its branch holds its commit.
    const first = results[0]!.thread;
    const cleanup = await json<{ worktree: { removed: boolean; branchRemoved: boolean } }>([
      "thread",
      "cleanup",
      first,
    ]);
    expect(cleanup.worktree).toMatchObject({ removed: true, branchRemoved: false });
    expect(existsSync(join(temp.home, "worktrees", "project", first))).toBe(false);
    expect(git(repo, "branch", "--list", `uwf/${first}`)).toContain(`uwf/${first}`);
    // The parent's cleanup takes the rest of its children's worktrees (it has none of its own).
    const rest = await json<{
      worktree?: unknown;
      children: { thread: string; worktree: { removed: boolean; branchRemoved: boolean } }[];
    }>(["thread", "cleanup", thread]);
    expect(rest.worktree).toBeUndefined();
    const byId = (a: { thread: string }, b: { thread: string }) => (a.thread < b.thread ? -1 : 1);
    expect(rest.children.sort(byId)).toEqual(
      [...results.slice(1)].sort(byId).map((r) => ({
        thread: r.thread,
        worktree: expect.objectContaining({ removed: true, branchRemoved: false }),
      })),
    );
    for (const r of results) {
      expect(existsSync(join(temp.home, "worktrees", "project", r.thread))).toBe(false);
    }
    const nothing = await uwf(["thread", "cleanup", thread]);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain(
      `thread ${thread} has no git worktree, and none of its fan-out children that ended has one left`,
    );
    const verify = await uwf(["thread", "verify", "--all"]);
    expect(verify.code, verify.stderr).toBe(0);
  });

  it("cancelling the parent removes its unfinished children's worktrees; completed ones stay", async () => {
    writeFileSync(join(flows, "fail-alpha"), "");
    const { thread } = await json<{ thread: string }>([
      "thread",
      "start",
      join(flows, "fan-edit.yaml"),
      "-p",
      "Edit all",
    ]);
    const exec = await uwf(["thread", "exec", thread, "-c", "3"]);
    expect(exec.code, exec.stderr).toBe(4);
    const children = (await json<Show>(["thread", "show", thread])).children!;
    expect(children.map((c) => c.status)).toEqual(["suspended", "completed", "completed"]);
    const trees = await Promise.all(
      children.map(async (c) => (await json<Show>(["thread", "show", c.thread])).worktree!),
    );
    const cancel = await json<{
      children: string[];
      childWorktrees: { path: string; removed: boolean; branchRemoved: boolean }[];
    }>(["thread", "cancel", thread]);
    expect(cancel.children).toEqual([children[0]!.thread]);
    expect(cancel.childWorktrees).toEqual([
      expect.objectContaining({ path: trees[0]!.path, removed: true, branchRemoved: true }),
    ]);
    expect(existsSync(trees[0]!.path)).toBe(false);
    expect(git(repo, "branch", "--list", trees[0]!.branch)).toBe("");
    // The completed children keep their worktrees and commits.
    for (const tree of trees.slice(1)) expect(existsSync(tree.path)).toBe(true);
  });

  it("a parent outside any repository suspends naming the child, makes nothing, and resume goes on once it is one", async () => {
    const outside = join(temp.home, "plain");
    mkdirSync(join(outside, "src"), { recursive: true });
    const run = (args: string[]) => runUwf(args, { home: temp.home, cwd: outside });
    const start = await run([
      "thread",
      "start",
      join(flows, "fan-edit.yaml"),
      "-p",
      "x",
      "--format",
      "json",
    ]);
    expect(start.code, start.stderr).toBe(0);
    const { thread } = JSON.parse(start.stdout) as { thread: string };
    const exec = await run(["thread", "exec", thread, "-c", "3"]);
    expect(exec.code).toBe(4);
    const show = await run(["thread", "show", thread, "--format", "json"]);
    const doc = JSON.parse(show.stdout) as Show & { suspended: { reason: string } };
    expect(doc.status).toBe("suspended");
    expect(doc.suspended.reason).toContain(
      'child 0 of the fan-out to role "collect" gets its own git worktree (workflow "edit-one" says worktree: true), which could not be made',
    );
    expect(doc.suspended.reason).toContain("is not inside a git repository");
    const list = await run(["thread", "list", "--format", "json"]);
    expect((JSON.parse(list.stdout) as { threads: unknown[] }).threads).toHaveLength(1);

    // Made a repository: resume makes the children, each in its own worktree, and joins.
    git(outside, "init", "--quiet");
    git(outside, "config", "user.name", "uwf test");
    git(outside, "config", "user.email", "test@example.com");
    git(
      outside,
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@e",
      "commit",
      "-q",
      "--allow-empty",
      "-m",
      "a",
    );
    const resume = await run(["thread", "resume", thread, "--format", "json"]);
    expect(resume.code, resume.stderr).toBe(0);
    expect((JSON.parse(resume.stdout) as { status: string }).status).toBe("completed");
    const after = await run(["thread", "list", "--format", "json"]);
    const threads = (JSON.parse(after.stdout) as { threads: { thread: string }[] }).threads;
    expect(threads).toHaveLength(1 + ITEMS.length);
    for (const { thread: id } of threads) {
      if (id === thread) continue;
      const child = JSON.parse(
        (await run(["thread", "show", id, "--format", "json"])).stdout,
      ) as Show;
      expect(child.worktree?.branch).toBe(`uwf/${id}`);
    }
  });
});
