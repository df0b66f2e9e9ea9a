import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  REPO_ROOT,
  type RunResult,
  runUwf,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

/**
 * A fan-out is written in YAML (`fanout: { over, role | workflow }` on an edge, `join: true` on
 * a role); validate, add, show and thread start store it with the child workflow pinned.
 */

const HASH = /^[0-9A-HJKMNP-TV-Z]{13}$/;

const PARENT = `name: review-all
roles:
  plan:
    description: Lists the files to review.
    frontmatter:
      type: object
      required: [$status, files]
      properties:
        $status: { const: ready }
        files:
          type: array
          items: { type: object, required: [path], properties: { path: { type: string } } }
  review:
    description: Reviews one file.
    frontmatter:
      type: object
      required: [$status]
      properties: { $status: { enum: [approved, rejected] } }
  collect:
    join: true
    description: Collects the reviews.
    frontmatter:
      type: object
      required: [$status, results]
      properties:
        $status: { enum: [done, partial] }
        results: { type: array }
  publish:
    join: true
    frontmatter:
      type: object
      required: [$status]
      properties: { $status: { const: done } }
graph:
  $START:
    new: { role: plan, prompt: "Plan the review." }
    resume: { role: plan, prompt: "Plan again." }
  plan:
    ready:
      role: collect
      prompt: "Review {{{item.path}}}"
      fanout: { over: "{{{files}}}", role: review, concurrency: 2, failure: continue }
  collect:
    done:
      role: publish
      prompt: "Publish the {{{completed}}} reviews."
      fanout: { workflow: ./flows/publish.yaml }
    partial: { role: $END, prompt: "{{{failed}}} reviews failed." }
  publish:
    done: { role: $END, prompt: "Published." }
`;

const PUBLISH = `name: publish
roles:
  writer:
    frontmatter:
      type: object
      required: [$status]
      properties: { $status: { const: done } }
graph:
  $START:
    new: { role: writer, prompt: "Write it up." }
    resume: { role: writer, prompt: "Again." }
  writer:
    done: { role: $END, prompt: "Written." }
`;

let home: TempHome;
let work: TempHome;
beforeAll(() => {
  if (!existsSync(join(REPO_ROOT, "packages/cli/dist/bundle/main.cjs"))) {
    throw new Error("packages/cli/dist/bundle is missing: run `pnpm build` first");
  }
});
beforeEach(() => {
  home = tempHome();
  work = tempHome();
  write("review-all.yaml", PARENT);
  write("flows/publish.yaml", PUBLISH);
});
afterEach(() => {
  home.cleanup();
  work.cleanup();
});

function write(path: string, content: string): string {
  const full = join(work.home, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, content);
  return full;
}

function uwf(args: string[]): Promise<RunResult> {
  return runUwf(args, { home: home.home, cwd: work.home });
}

async function json<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const run = await uwf([...args, "--format", "json"]);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as T;
}

interface Shown {
  name: string;
  hash: string;
  graph: Record<string, Record<string, { role: string; fanout?: Record<string, unknown> }>>;
  roleDetails: Record<string, { join?: boolean }>;
}

describe("fan-out definitions", () => {
  it("validate, add, show and thread start agree on the pinned workflow", async () => {
    const validated = await json<{ valid: boolean; hash: string }>([
      "workflow",
      "validate",
      "review-all.yaml",
    ]);
    expect(validated.valid).toBe(true);
    expect(validated.hash).toMatch(HASH);

    const added = await json<{ hash: string }>(["workflow", "add", "review-all.yaml"]);
    expect(added.hash).toBe(validated.hash);

    const shown = await json<Shown>(["workflow", "show", "review-all"]);
    expect(shown.roleDetails.collect?.join).toBe(true);
    const fanout = shown.graph.plan?.ready?.fanout as Record<string, unknown>;
    expect(fanout).toEqual({
      workflow: expect.stringMatching(HASH),
      over: "{{{files}}}",
      concurrency: 2,
      failure: "continue",
    });
    const text = await uwf(["workflow", "show", "review-all"]);
    expect(text.stdout).toContain("  collect (join) — Collects the reviews.");
    expect(text.stdout).toContain(
      `  plan --ready--> collect\n      fan-out: one child per item of {{{files}}}, running review-all/review (${fanout.workflow}), concurrency 2, failure continue\n`,
    );
    // The role form's child: role review alone, ended by each status it declares.
    const child = await json<Shown>(["workflow", "show", fanout.workflow as string]);
    expect(child.name).toBe("review-all/review");
    expect(Object.keys(child.graph.review ?? {})).toEqual(["approved", "rejected"]);
    expect(child.graph.review?.approved?.role).toBe("$END");
    // The workflow form's child: the file next to the parent, stored and pinned.
    const publish = shown.graph.collect?.done?.fanout?.workflow as string;
    expect((await json<Shown>(["workflow", "show", publish])).name).toBe("publish");

    // The children are reached through the parent: garbage collection keeps them.
    const gc = await json<{ unreachable: string[] }>(["cas", "gc", "--keep-recent", "0"]);
    expect(gc.unreachable).toEqual([]);

    const start = await uwf(["thread", "start", "review-all.yaml", "-p", "Review the repo"]);
    expect(start.code).toBe(0);
    const thread = start.stdout.trim();
    const pointer = await json<{ workflowHash: string; nextRole: string }>([
      "thread",
      "show",
      thread,
    ]);
    expect(pointer.workflowHash).toBe(added.hash);
    expect(pointer.nextRole).toBe("plan");
  });

  it("a changed child file changes the parent's hash: the parent is pinned to it", async () => {
    const before = await json<{ hash: string }>(["workflow", "add", "review-all.yaml"]);
    write("flows/publish.yaml", PUBLISH.replace("Write it up.", "Write it all up."));
    const after = await json<{ hash: string; changed: boolean }>([
      "workflow",
      "add",
      "review-all.yaml",
    ]);
    expect(after.changed).toBe(true);
    expect(after.hash).not.toBe(before.hash);
  });

  it("a workflow child by registered name resolves from the registry", async () => {
    write("elsewhere/publish.yaml", PUBLISH);
    const registered = await json<{ hash: string }>(["workflow", "add", "elsewhere/publish.yaml"]);
    write("review-all.yaml", PARENT.replace("./flows/publish.yaml", "publish"));
    await json(["workflow", "add", "review-all.yaml"]);
    const shown = await json<Shown>(["workflow", "show", "review-all"]);
    expect(shown.graph.collect?.done?.fanout?.workflow).toBe(registered.hash);
  });

  it("an invalid fan-out is refused by validate, add and thread start with the same message", async () => {
    write(
      "review-all.yaml",
      PARENT.replace("role: review, concurrency: 2", "role: review, concurrency: 0"),
    );
    const expected = [
      "review-all.yaml:42:52: graph[plan][ready].fanout.concurrency must be a whole number, at least 1 (how many children run at once; default 4)",
    ];
    const validate = await uwf(["workflow", "validate", "review-all.yaml", "--format", "json"]);
    expect(validate.code).toBe(3);
    expect(JSON.parse(validate.stdout).errors).toEqual(expected);
    for (const args of [
      ["workflow", "add", "review-all.yaml"],
      ["thread", "start", "review-all.yaml", "-p", "go"],
    ]) {
      const run = await uwf(args);
      expect(run.code).toBe(3);
      expect(run.stderr).toContain(expected[0]);
    }
    expect((await uwf(["thread", "list", "--format", "json"])).stdout).toContain("[]");
  });

  it("a fan-out cycle is named", async () => {
    write(
      "flows/publish.yaml",
      PARENT.replace("name: review-all", "name: publish").replace(
        "./flows/publish.yaml",
        "../review-all.yaml",
      ),
    );
    const run = await uwf(["workflow", "validate", "review-all.yaml"]);
    expect(run.code).toBe(3);
    expect(run.stdout).toContain(
      "fan-out cycle: review-all.yaml → flows/publish.yaml → review-all.yaml",
    );
  });
});
