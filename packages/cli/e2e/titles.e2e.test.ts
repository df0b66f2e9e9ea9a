import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Sandbox, sandbox, uwf, uwfJson } from "./fixtures/lifecycle/harness.js";

/**
 * Threads have names: `--title`, else the task's first line; a fan-out's children are named
 * by their items. Lists, `thread show`, `thread tree` and progress lines show them, and
 * `thread list --title` finds threads by them.
 */

const FAN = (node: string) => `name: fan
roles:
  plan:
    run: [${JSON.stringify(node)}, -e, 'console.log(JSON.stringify({ $status: "ready", files: ["src/a.ts", "src/b.ts"] }))']
    frontmatter:
      type: object
      required: [$status, files]
      properties:
        $status: { const: ready }
        files: { type: array, items: { type: string } }
  work:
    run: [${JSON.stringify(node)}, -e, 'console.log(JSON.stringify({ $status: "done" }))']
    frontmatter:
      type: object
      required: [$status]
      properties:
        $status: { const: done }
  collect:
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
      prompt: "Review {{{item}}}"
      fanout: { over: "{{{files}}}", role: work }
  collect:
    done: { role: $END, prompt: "All done." }
`;

interface Listed {
  threads: { thread: string; title: string | null; parent?: string }[];
  total: number;
}

let sb: Sandbox;
let workflow: string;
beforeEach(() => {
  sb = sandbox();
  workflow = join(sb.work, "fan.yaml");
  writeFileSync(workflow, FAN(process.execPath));
});
afterEach(() => sb.cleanup());

describe("thread titles", () => {
  it("come from --title or the task's first line, and lists find threads by them", async () => {
    const named = await uwfJson<{ thread: string; title: string }>(sb, [
      "thread",
      "start",
      workflow,
      "-p",
      "Review everything",
      "--title",
      "Release 2.4 review",
    ]);
    expect(named.title).toBe("Release 2.4 review");
    const task = "## Fix the login timeout\n\nUsers are logged out after 30 s.";
    const derived = await uwfJson<{ thread: string; title: string }>(sb, [
      "thread",
      "start",
      workflow,
      "-p",
      task,
    ]);
    expect(derived.title).toBe("Fix the login timeout");

    const show = await uwf(sb, ["thread", "show", named.thread]);
    expect(show.stdout).toContain("title     Release 2.4 review\n");
    const found = await uwfJson<Listed>(sb, ["thread", "list", "--title", "LOGIN"]);
    expect(found.threads.map((t) => [t.thread, t.title])).toEqual([
      [derived.thread, "Fix the login timeout"],
    ]);
    const piped = await uwf(sb, ["thread", "list", "--title", "release"]);
    expect(piped.stdout.trimEnd()).toMatch(
      new RegExp(`^${named.thread} .*“Release 2\\.4 review”$`),
    );

    const blank = await uwf(sb, ["thread", "start", workflow, "-p", "x", "--title", "  "]);
    expect([blank.code, blank.stderr]).toEqual([2, expect.stringContaining("--title is empty")]);
  });

  it("name a fan-out's children by their items, in progress lines, lists and the tree", async () => {
    const { thread } = await uwfJson<{ thread: string }>(sb, [
      "thread",
      "start",
      workflow,
      "-p",
      "Review the files",
    ]);
    const exec = await uwf(sb, ["thread", "exec", thread, "-c", "5"]);
    expect(exec.code, exec.stderr).toBe(0);
    // Off a terminal, each child's step is named by its item.
    expect(exec.stderr).toContain("“src/a.ts”");
    expect(exec.stderr).toContain("“src/b.ts”");

    const children = await uwfJson<Listed>(sb, ["thread", "list", "--title", "src/"]);
    expect(children.threads.map((t) => [t.title, t.parent]).sort()).toEqual([
      ["src/a.ts", thread],
      ["src/b.ts", thread],
    ]);
    const tree = await uwf(sb, ["thread", "tree", thread]);
    expect(tree.stdout).toContain("“Review the files”");
    expect(tree.stdout).toMatch(/item 0: \S+ +completed .*“src\/a\.ts”/);

    const head = (await uwfJson<{ head: string }>(sb, ["thread", "show", thread])).head;
    const fork = await uwfJson<{ thread: string }>(sb, ["step", "fork", head]);
    const forked = await uwfJson<{ title: string }>(sb, ["thread", "show", fork.thread]);
    expect(forked.title).toBe("Review the files (fork)");
  });
});
