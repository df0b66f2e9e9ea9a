import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  makeGitRepo,
  REPO_ROOT,
  runGit,
  runUwf,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const EXAMPLE = join(REPO_ROOT, "examples", "in-worktree.yaml");
const MOCK = `${process.execPath} ${UWF_MOCK_BIN} --scenario ${join(REPO_ROOT, "examples", "scenarios", "in-worktree.yaml")}`;

/** A script role that writes where it ran to `where.txt` in its cwd: no agent at all. */
const WHERE_WORKFLOW = `name: where
worktree: true
roles:
  where:
    run: [${JSON.stringify(process.execPath)}, -e, "require('fs').writeFileSync('where.txt', process.cwd())"]
    exitStatus: { 0: written, default: failed }
    frontmatter:
      type: object
      properties: { $status: { enum: [written, failed] } }
      required: [$status]
graph:
  $START:
    new: { role: where, prompt: "Say where you are." }
    resume: { role: where, prompt: "Again." }
  where:
    written: { role: $END, prompt: "Done." }
    failed: { role: $SUSPEND, prompt: "It failed." }
`;

interface Worktree {
  path: string;
  branch: string;
  repo: string;
  base: string;
}

describe("a git worktree per thread", () => {
  let temp: TempHome;
  let repo: string;
  const git = (cwd: string, ...args: string[]) => runGit(temp.home, cwd, ...args);
  const uwf = (args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) =>
    runUwf(args, {
      home: temp.home,
      cwd: options.cwd ?? repo,
      ...(options.env && { env: options.env }),
    });
  const json = async <T = Record<string, unknown>>(args: string[], cwd?: string): Promise<T> => {
    const run = await uwf([...args, "--format", "json"], cwd === undefined ? {} : { cwd });
    if (run.code !== 0) throw new Error(`uwf ${args.join(" ")}: ${run.code}\n${run.stderr}`);
    return JSON.parse(run.stdout) as T;
  };
  const show = (thread: string) =>
    json<{ cwd: string; status: string; worktree: Worktree | null }>(["thread", "show", thread]);

  beforeEach(() => {
    temp = tempHome();
    repo = makeGitRepo(temp.home, join(temp.home, "project"), { "src/index.js": "export {};\n" });
    writeFileSync(join(temp.home, "where.yaml"), WHERE_WORKFLOW);
  });
  afterEach(() => temp.cleanup());

  it("runs every role of the thread in its own worktree on branch uwf/<thread>, at the cwd's place in it", async () => {
    const { thread } = await json<{ thread: string }>(
      ["thread", "start", join(temp.home, "where.yaml"), "-p", "where?"],
      join(repo, "src"),
    );
    const before = await show(thread);
    const worktree = before.worktree!;
    expect(worktree).toMatchObject({
      branch: `uwf/${thread}`,
      repo,
      base: git(repo, "rev-parse", "HEAD"),
      path: join(temp.home, "worktrees", "project", thread),
    });
    expect(before.cwd).toBe(join(worktree.path, "src"));
    expect(git(repo, "worktree", "list")).toContain(`[uwf/${thread}]`);
    const text = await uwf(["thread", "show", thread]);
    expect(text.stdout).toContain(`worktree  ${worktree.path}, branch uwf/${thread}`);

    const exec = await json<{ status: string }>(["thread", "exec", thread, "-c", "3"]);
    expect(exec.status).toBe("completed");
    // The script ran in the worktree: the file is there, and the user's checkout is untouched.
    expect(readFileSync(join(worktree.path, "src", "where.txt"), "utf8")).toBe(
      join(worktree.path, "src"),
    );
    expect(existsSync(join(repo, "src", "where.txt"))).toBe(false);
    expect(git(repo, "status", "--porcelain")).toBe("");
  });

  it("commits on the thread's branch only; a fork gets its own worktree from that branch; cancel cleans up what holds no work", async () => {
    const { thread } = await json<{ thread: string }>(["thread", "start", EXAMPLE, "-p", "Add it"]);
    const exec = await json<{ status: string; steps: { hash: string; role: string }[] }>([
      "thread",
      "exec",
      thread,
      "-c",
      "5",
      "--agent",
      MOCK,
    ]);
    expect(exec.status).toBe("completed");
    const parent = (await show(thread)).worktree!;
    const committed = git(repo, "rev-parse", parent.branch);
    expect(committed).not.toBe(parent.base);
    expect(git(repo, "log", "-1", "--format=%s", parent.branch)).toBe("uwf in-worktree");
    expect(git(repo, "rev-parse", "HEAD")).toBe(parent.base);

    // Fork at the developer's step: its own branch, from the head of the parent's.
    const developer = exec.steps.find((step) => step.role === "developer")!.hash;
    const fork = await json<{ thread: string; worktree: Worktree }>(["step", "fork", developer]);
    expect(fork.worktree).toMatchObject({ branch: `uwf/${fork.thread}`, base: committed, repo });
    expect(fork.worktree.path).not.toBe(parent.path);
    expect(git(fork.worktree.path, "rev-parse", "HEAD")).toBe(committed);
    expect((await show(fork.thread)).cwd).toBe(fork.worktree.path);

    // The fork commits on its own branch; the parent's stays where it was.
    const forkExec = await json<{ status: string }>([
      "thread",
      "exec",
      fork.thread,
      "-c",
      "5",
      "--agent",
      MOCK,
    ]);
    expect(forkExec.status).toBe("completed");
    expect(git(repo, "rev-parse", fork.worktree.branch)).not.toBe(committed);
    expect(git(repo, "rev-parse", parent.branch)).toBe(committed);

    // A completed thread's worktree goes with `thread cleanup`; its branch holds its commit.
    const cleanup = await json<{ worktree: { removed: boolean; branchRemoved: boolean } }>([
      "thread",
      "cleanup",
      thread,
    ]);
    expect(cleanup.worktree).toMatchObject({ removed: true, branchRemoved: false });
    expect(existsSync(parent.path)).toBe(false);
    expect(git(repo, "rev-parse", parent.branch)).toBe(committed);
    expect((await show(thread)).worktree).toMatchObject({ path: parent.path, present: false });
    expect((await uwf(["thread", "show", thread])).stdout).toContain(`${parent.path} (removed)`);

    // A thread that made no commit and left no change: worktree and branch both go.
    const idle = await json<{ thread: string }>(["thread", "start", EXAMPLE, "-p", "Nothing"]);
    const idleTree = (await show(idle.thread)).worktree!;
    const early = await uwf(["thread", "cleanup", idle.thread]);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain(`thread ${idle.thread} is idle; its worktree is still in use`);
    const cancel = await json<{ worktree: { removed: boolean; branchRemoved: boolean } }>([
      "thread",
      "cancel",
      idle.thread,
    ]);
    expect(cancel.worktree).toMatchObject({ removed: true, branchRemoved: true });
    expect(existsSync(idleTree.path)).toBe(false);
    expect(git(repo, "branch", "--list", idleTree.branch)).toBe("");
  });

  it("keeps uncommitted work and committed branches, and everything with --keep-worktree", async () => {
    const start = async () => {
      const { thread } = await json<{ thread: string }>(["thread", "start", EXAMPLE, "-p", "x"]);
      return { thread, worktree: (await show(thread)).worktree! };
    };

    const dirty = await start();
    writeFileSync(join(dirty.worktree.path, "draft.md"), "unfinished\n");
    const refused = await uwf(["thread", "cancel", dirty.thread]);
    expect(refused.code).toBe(0);
    expect(refused.stdout).toContain(`${dirty.thread}: cancelled`);
    expect(refused.stdout).toContain(
      `worktree ${dirty.worktree.path} kept: it has 1 uncommitted change`,
    );
    expect(readFileSync(join(dirty.worktree.path, "draft.md"), "utf8")).toBe("unfinished\n");
    // Once the work is committed, cancelling again removes the worktree but keeps the branch.
    git(dirty.worktree.path, "add", "draft.md");
    git(dirty.worktree.path, "commit", "--quiet", "-m", "draft");
    const again = await json<{
      worktree: { removed: boolean; branchRemoved: boolean; note: string };
    }>(["thread", "cancel", dirty.thread]);
    expect(again.worktree).toMatchObject({ removed: true, branchRemoved: false });
    expect(again.worktree.note).toContain(`branch ${dirty.worktree.branch} kept`);
    expect(existsSync(dirty.worktree.path)).toBe(false);
    expect(git(repo, "log", "-1", "--format=%s", dirty.worktree.branch)).toBe("draft");

    const kept = await start();
    const keep = await uwf(["thread", "cancel", kept.thread, "--keep-worktree"]);
    expect(keep.code).toBe(0);
    expect(keep.stdout).toContain("kept (--keep-worktree)");
    expect(existsSync(kept.worktree.path)).toBe(true);
    expect(git(repo, "branch", "--list", kept.worktree.branch)).toContain(kept.worktree.branch);
  });

  it("--no-worktree runs in the cwd itself; --worktree asks for one when the workflow does not", async () => {
    const plain = await json<{ thread: string }>([
      "thread",
      "start",
      EXAMPLE,
      "-p",
      "x",
      "--no-worktree",
    ]);
    expect(await show(plain.thread)).toMatchObject({ cwd: repo, worktree: null });
    const hello = join(REPO_ROOT, "examples", "hello.yaml");
    const asked = await json<{ thread: string }>([
      "thread",
      "start",
      hello,
      "-p",
      "x",
      "--worktree",
    ]);
    expect((await show(asked.thread)).worktree?.branch).toBe(`uwf/${asked.thread}`);
    expect(
      (await show((await json<{ thread: string }>(["thread", "start", hello, "-p", "x"])).thread))
        .worktree,
    ).toBeNull();
  });

  it("honours worktrees.dir, relative to the repository's top folder", async () => {
    expect((await uwf(["config", "set", "worktrees.dir", ".uwf-worktrees"])).code).toBe(0);
    const { thread } = await json<{ thread: string }>(["thread", "start", EXAMPLE, "-p", "x"]);
    expect((await show(thread)).worktree?.path).toBe(join(repo, ".uwf-worktrees", thread));
  });

  it("says what to do outside a repository, in one without a commit, and without git; nothing is started", async () => {
    const outside = join(temp.home, "plain");
    mkdirSync(outside);
    const notRepo = await uwf(["thread", "start", EXAMPLE, "-p", "x"], { cwd: outside });
    expect(notRepo.code).toBe(1);
    expect(notRepo.stderr).toContain(`"${outside}" is not inside a git repository`);
    expect(notRepo.stderr).toContain("--no-worktree");

    const empty = join(temp.home, "empty");
    mkdirSync(empty);
    git(empty, "init", "--quiet");
    const noCommit = await uwf(["thread", "start", EXAMPLE, "-p", "x"], { cwd: empty });
    expect(noCommit.code).toBe(1);
    expect(noCommit.stderr).toContain("has no commit yet");

    const noGit = await uwf(["thread", "start", EXAMPLE, "-p", "x"], {
      env: { PATH: join(temp.home, "no-such-bin") },
    });
    expect(noGit.code).toBe(1);
    expect(noGit.stderr).toContain("git was not found in PATH");

    const list = await json<{ total: number }>(["thread", "list"]);
    expect(list.total).toBe(0);
  });
});
