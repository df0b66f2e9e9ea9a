import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  emptyUsage,
  type StepPayload,
  type WorkflowPayload,
  workflowNodeKind,
} from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { appendStep, openHomeStore, seedThread } from "@united-workforce/test-utils";
import { isUwfError, newUlid } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { relay } from "../../__fixtures__/workflows.js";
import { evaluate } from "../../moderator/evaluate.js";
import { childThreadId } from "../../steps/fanout/children.js";
import { createThread } from "../../threads/new-thread.js";
import { exportBundle } from "../bundle.js";
import { importBundle } from "./import-bundle.js";

/** Two stores: the thread's own (`there`) and the one it is imported into (`here`). */
let root: string;
let there: Store;
let here: Store;
/** The importer's cwd. */
let cwd: string;
beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), "uwf-import-"));
  there = await openHomeStore(join(root, "there"));
  here = await openHomeStore(join(root, "here"));
  cwd = join(root, "work");
  mkdirSync(cwd);
});
afterEach(async () => {
  await there.close();
  await here.close();
  rmSync(root, { recursive: true, force: true });
});

async function bundleOf(ids: string[]): Promise<string> {
  const lines: string[] = [];
  for await (const line of exportBundle(there, ids)) lines.push(line);
  return `${lines.join("\n")}\n`;
}

/** The bundle with its header's pointers changed by `edit`. */
function edited(bundle: string, edit: (pointer: Record<string, unknown>, i: number) => void) {
  const [first, ...rest] = bundle.split("\n");
  const header = JSON.parse(first!);
  header.threads.forEach(edit);
  return [JSON.stringify(header), ...rest].join("\n");
}

async function refusal(run: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  if (!isUwfError(error)) throw new Error(`expected a UwfError, got ${String(error)}`);
  return { code: error.code, message: error.message };
}

const writer = { role: "writer", output: { $status: "written", text: "hi" } };
const reviewer = { role: "reviewer", output: { $status: "asks", question: "why?" } };

/** A relay thread of `there` with the writer's step, run in /elsewhere/app. */
async function written(): Promise<string> {
  const { thread } = await seedThread(there, {
    workflow: relay,
    prompt: "p",
    cwd: "/elsewhere/app",
  });
  await appendStep(there, thread, writer);
  return thread;
}

async function nothingHere(): Promise<void> {
  expect((await here.threads.list()).items).toEqual([]);
  const nodes: string[] = [];
  for await (const hash of here.cas.backend.list()) nodes.push(hash);
  expect(nodes).toEqual([]);
}

describe("importBundle: what of a pointer is taken", () => {
  it("drops the remembered agent and the worktree, and runs the thread in the importer's cwd", async () => {
    const thread = await written();
    const bundle = edited(await bundleOf([thread]), (p) => {
      p.agent = '/bin/sh -c "touch /tmp/PWNED"';
      p.worktree = { path: "/elsewhere/wt", branch: "uwf/x", repo: "/elsewhere", base: "abc" };
      p.unknownField = "kept nowhere";
    });
    const report = await importBundle(here, bundle, { cwd });
    expect(report.threads).toEqual([
      {
        thread,
        head: expect.any(String),
        steps: 1,
        status: "imported",
        cwd,
        dropped: {
          agent: '/bin/sh -c "touch /tmp/PWNED"',
          worktree: "/elsewhere/wt",
          cwd: "/elsewhere/app",
        },
      },
    ]);
    const pointer = await here.threads.get(thread);
    expect(pointer.agent).toBeUndefined();
    expect(pointer.worktree).toBeUndefined();
    expect(pointer.cwd).toBe(cwd);
    expect(pointer).not.toHaveProperty("unknownField");
  });

  it("keeps a thread's subfolder under the exported thread's cwd, and nothing outside it", async () => {
    const thread = await written();
    const child = newUlid();
    const grandchild = newUlid();
    const pointer = await there.threads.get(thread);
    const { rev: _rev, ...rest } = pointer;
    await there.threads.create({ ...rest, thread: child, cwd: "/elsewhere/app/packages/a" });
    await there.threads.create({ ...rest, thread: grandchild, cwd: "/elsewhere/other" });
    const report = await importBundle(here, await bundleOf([thread, child, grandchild]), { cwd });
    expect(report.threads.map((t) => t.cwd)).toEqual([cwd, join(cwd, "packages/a"), cwd]);
  });

  it("keeps a suspension's relative location, and drops one that leaves the thread's cwd", async () => {
    const thread = await written();
    const suspend = (location: string) => (p: Record<string, unknown>) => {
      p.status = "suspended";
      p.suspended = { role: "reviewer", reason: "agent failed", kind: "failure", location };
    };
    const bundle = await bundleOf([thread]);
    await importBundle(here, edited(bundle, suspend("sub/dir")), { cwd });
    expect((await here.threads.get(thread)).suspended?.location).toBe("sub/dir");

    const other = await openHomeStore(join(root, "other"));
    try {
      const report = await importBundle(other, edited(bundle, suspend("../../etc")), { cwd });
      expect(report.threads[0]!.dropped).toMatchObject({ location: "../../etc" });
      expect((await other.threads.get(thread)).suspended?.location).toBeNull();
    } finally {
      await other.close();
    }
  });

  it("names the workflows that run commands of their own", async () => {
    const scripted = structuredClone(relay);
    scripted.roles.writer!.run = ["echo", "hi"];
    const { thread } = await seedThread(there, { workflow: scripted, prompt: "p", cwd: "/x" });
    const report = await importBundle(here, await bundleOf([thread]), { cwd });
    expect(report.scripts).toEqual([
      {
        workflow: "relay",
        hash: (await there.threads.get(thread)).workflowHash,
        roles: ["writer"],
      },
    ]);
  });
});

describe("importBundle: a pointer must say what its chain says", () => {
  const cases: [string, (p: Record<string, unknown>) => void, string][] = [
    [
      "a status that is derived, never stored",
      (p) => (p.status = "running"),
      '`status` is "running", not idle, suspended, completed or cancelled',
    ],
    [
      "a workflow name that is not its workflow's",
      (p) => (p.workflow = "../evil"),
      `names workflow "../evil", but the workflow it is pinned to`,
    ],
    [
      "a suspension naming a role the workflow lacks",
      (p) => {
        p.status = "suspended";
        p.suspended = { role: "zzz", reason: "r", kind: "question" };
      },
      `its suspension names role "zzz", which is not in workflow "relay"`,
    ],
    [
      "a malformed suspension",
      (p) => {
        p.status = "suspended";
        p.suspended = { role: "zzz" };
      },
      "`suspended.reason` is missing; `suspended.kind` is missing",
    ],
    [
      "a suspended status without a suspension",
      (p) => (p.status = "suspended"),
      "says `suspended` but not why",
    ],
    [
      "an idle status with a suspension",
      (p) => (p.suspended = { role: "writer", reason: "r", kind: "question" }),
      "says `idle` but holds a suspension",
    ],
    [
      "a last role its head did not run",
      (p) => (p.currentRole = "reviewer"),
      'the last role was "reviewer", but its head step ran "writer"',
    ],
    ["a step count its chain does not hold", (p) => (p.steps = 3), "the thread counts 3 steps"],
    [
      "a time that is not one",
      (p) => (p.createdAt = "yesterday"),
      '`createdAt` is "yesterday", not an ISO 8601 time',
    ],
    [
      "usage that is not figures",
      (p) => (p.usage = { inputTokens: "lots" }),
      '`usage.inputTokens` is "lots", not a number or null; `usage.outputTokens` is missing',
    ],
    ["usage that is not an object", (p) => (p.usage = "lots"), '`usage` is "lots", not an object'],
    [
      "usage with a figure it does not know",
      (p) => (p.usage = { ...emptyUsage(), tokens: 3 }),
      "`usage` has a field it does not allow: `tokens`",
    ],
    [
      "a worktree whose path is not a string",
      (p) => (p.worktree = { path: 3, branch: "b", repo: "/r", base: "abc" }),
      "`worktree.path` is 3, not a string",
    ],
    [
      "a count of steps without cost that is not one",
      (p) => (p.unknownCostSteps = -1),
      "`unknownCostSteps` is -1, less than 0",
    ],
    ["a remembered agent of null", (p) => (p.agent = null), "`agent` is null, not a string"],
    [
      "a remembered agent that is not a command line",
      (p) => (p.agent = { cmd: "x" }),
      "`agent` is an object, not a string",
    ],
    [
      "a suspension's location that is not a path",
      (p) => {
        p.status = "suspended";
        p.suspended = { role: "writer", reason: "r", kind: "failure", location: 3 };
      },
      "`suspended.location` is 3, not a string or null",
    ],
    [
      "a suspension's replaceHead that is not true or false",
      (p) => {
        p.status = "suspended";
        p.suspended = { role: "writer", reason: "r", kind: "failure", replaceHead: "yes" };
      },
      '`suspended.replaceHead` is "yes", not a boolean',
    ],
    [
      "a retry time that is not one",
      (p) => {
        p.status = "suspended";
        p.suspended = { role: "writer", reason: "r", kind: "retry", retryAfter: "soon" };
      },
      '`suspended.retryAfter` is "soon", not an ISO 8601 time',
    ],
    [
      "a fan-out parent that names no thread",
      (p) => (p.parent = { thread: "../x", step: p.start, index: 0 }),
      '`parent.thread` is "../x", not a thread id',
    ],
    ["a thread id that is a path", (p) => (p.thread = "../../x"), '`thread` "../../x"'],
  ];
  it.each(cases)("refuses %s, and writes nothing", async (_, edit, words) => {
    const thread = await written();
    const bad = edited(await bundleOf([thread]), edit);
    const { code, message } = await refusal(importBundle(here, bad, { cwd }));
    expect(code).toBe("BUNDLE_INVALID");
    expect(message).toContain(words);
    expect(message).toContain("nothing was imported");
    await nothingHere();
  });

  it("refuses `completed` when the head leads to another role, and writes nothing", async () => {
    const thread = await written();
    const bad = edited(await bundleOf([thread]), (p) => (p.status = "completed"));
    const { code, message } = await refusal(importBundle(here, bad, { cwd }));
    expect(code).toBe("BUNDLE_INVALID");
    expect(message).toContain(
      `the thread says "completed", but "writer" answered "written", which leads to "reviewer", not to $END`,
    );
    await nothingHere();
  });

  it("refuses `idle` when the head reached $END, and takes the same thread completed", async () => {
    const thread = await written();
    await appendStep(there, thread, { role: "reviewer", output: { $status: "approved" } });
    const bundle = await bundleOf([thread]);
    const { code, message } = await refusal(importBundle(here, bundle, { cwd }));
    expect(code).toBe("BUNDLE_INVALID");
    expect(message).toContain(
      'its pointer says `idle`, but its head step\'s role "reviewer" answered "approved", which leads to $END: the thread ended',
    );
    await nothingHere();
    await importBundle(
      here,
      edited(bundle, (p) => (p.status = "completed")),
      { cwd },
    );
    expect((await here.threads.get(thread)).status).toBe("completed");
  });

  it("refuses a thread listed twice", async () => {
    const thread = await written();
    const bundle = await bundleOf([thread]);
    const [first, ...rest] = bundle.split("\n");
    const header = JSON.parse(first!);
    header.threads.push(header.threads[0]);
    const twice = [JSON.stringify(header), ...rest].join("\n");
    expect((await refusal(importBundle(here, twice, { cwd }))).message).toContain("listed twice");
    await nothingHere();
  });
});

describe("importBundle: a thread that is here already", () => {
  /** Bundles of one thread after 1 and after 2 steps. */
  async function twoExports(): Promise<{ thread: string; ff1: string; ff2: string }> {
    const thread = await written();
    const ff1 = await bundleOf([thread]);
    await appendStep(there, thread, reviewer);
    return { thread, ff1, ff2: await bundleOf([thread]) };
  }

  it("fast-forwards it when the bundle's chain goes on from it", async () => {
    const { thread, ff1, ff2 } = await twoExports();
    await importBundle(here, ff1, { cwd });
    const before = await here.threads.get(thread);
    // Run from another folder: a fast-forwarded thread keeps the cwd it has here.
    const report = await importBundle(here, ff2, { cwd: root });
    const after = await here.threads.get(thread);
    expect(report.threads).toEqual([
      {
        thread,
        head: after.head,
        steps: 2,
        status: "fast-forwarded",
        cwd,
        from: before.head,
        by: 1,
        dropped: { cwd: "/elsewhere/app" },
      },
    ]);
    expect(after).toMatchObject({ steps: 2, currentRole: "reviewer", cwd });
    expect(after.head).toBe((await there.threads.get(thread)).head);
  });

  it("keeps this store's thread that went further, and says by how much", async () => {
    const { thread, ff1, ff2 } = await twoExports();
    await importBundle(here, ff2, { cwd });
    const report = await importBundle(here, ff1, { cwd });
    expect(report.threads).toEqual([
      expect.objectContaining({ thread, status: "ahead", by: 1, steps: 2 }),
    ]);
    expect((await here.threads.get(thread)).steps).toBe(2);
  });

  it("leaves it as it is at the same step, noting a status of the bundle's that differs", async () => {
    const { thread, ff1 } = await twoExports();
    await importBundle(here, ff1, { cwd });
    const report = await importBundle(here, ff1, { cwd });
    expect(report.threads[0]).toEqual(expect.objectContaining({ status: "unchanged" }));
    expect(report.threads[0]).not.toHaveProperty("bundleStatus");
    const cancelled = edited(ff1, (p) => (p.status = "cancelled"));
    const again = await importBundle(here, cancelled, { cwd });
    expect(again.threads[0]).toMatchObject({ status: "unchanged", bundleStatus: "cancelled" });
    expect((await here.threads.get(thread)).status).toBe("idle");
  });

  it("refuses another history, naming where the two part", async () => {
    const { thread, ff1, ff2 } = await twoExports();
    await importBundle(here, ff1, { cwd });
    const first = (await here.threads.get(thread)).head;
    const ours = await appendStep(here, thread, { ...reviewer, body: "ours" });
    const before = await here.threads.get(thread);
    const { code, message } = await refusal(importBundle(here, ff2, { cwd }));
    expect(code).toBe("THREAD_EXISTS");
    expect(message).toContain(`thread ${thread} exists here with another history`);
    expect(message).toContain(`both have its first step (${first})`);
    expect(message).toContain(`this store's has 1 step of its own (head ${ours})`);
    expect(message).toContain("nothing was imported");
    expect(await here.threads.get(thread)).toEqual(before);
  });

  it("refuses to fast-forward a thread that runs here, and writes nothing", async () => {
    const { thread, ff1, ff2 } = await twoExports();
    await importBundle(here, ff1, { cwd });
    const before = await here.threads.get(thread);
    const { lease } = await here.leases.acquire(thread, { command: "uwf thread exec" });
    try {
      const { code, message } = await refusal(importBundle(here, ff2, { cwd }));
      expect(code).toBe("THREAD_BUSY");
      expect(message).toContain("nothing was imported");
    } finally {
      await lease.release();
    }
    expect(await here.threads.get(thread)).toEqual(before);
    expect((await importBundle(here, ff2, { cwd })).threads[0]!.status).toBe("fast-forwarded");
  });
});

describe("importBundle: a fan-out child must be the one its parent's fan-out makes", () => {
  /**
   * A parent of `there` whose plan lists two files, with the two children its fan-out makes
   * (made as the engine makes them: derived ids, the item's task, the step's time), not run.
   */
  async function family(): Promise<{ parent: string; step: string; children: string[] }> {
    const childRole = {
      frontmatter: await there.cas.putSchema({
        type: "object",
        required: ["$status"],
        properties: { $status: { const: "done" } },
      }),
    };
    const childWorkflow: WorkflowPayload = {
      name: "parent/review",
      roles: { review: childRole },
      graph: {
        $START: { new: { role: "review", prompt: "Review." } },
        review: { done: { role: "$END", prompt: "Done." } },
      },
    };
    const childHash = await there.cas.put(
      there.cas.builtin(workflowNodeKind(childWorkflow)),
      childWorkflow,
    );
    const { thread: parent } = await seedThread(there, {
      workflow: {
        name: "parent",
        roles: {
          plan: {
            frontmatter: {
              type: "object",
              required: ["$status", "files"],
              properties: { $status: { const: "ready" }, files: { type: "array" } },
            },
          },
          collect: {
            join: true,
            frontmatter: {
              type: "object",
              required: ["$status"],
              properties: { $status: { const: "done" } },
            },
          },
        },
        graph: {
          $START: { new: { role: "plan", prompt: "Plan." } },
          plan: {
            ready: {
              role: "collect",
              prompt: "item {{{index}}} {{{item}}}",
              fanout: { workflow: childHash, over: "{{{files}}}" },
            },
          },
          collect: { done: { role: "$END", prompt: "Done." } },
        },
      },
      prompt: "Review the repo",
      cwd: "/elsewhere/app",
    });
    const step = await appendStep(there, parent, {
      role: "plan",
      output: { $status: "ready", files: ["a.ts", "b.ts"] },
    });
    return { parent, step, children: await childrenOf(parent, step) };
  }

  /** The children the fan-out after `step` makes (as `runFanout` makes them). */
  async function childrenOf(parent: string, step: string): Promise<string[]> {
    const pointer = await there.threads.get(parent);
    const workflow = await there.cas.getPayload<WorkflowPayload>(pointer.workflowHash);
    const payload = await there.cas.getPayload<StepPayload>(step, "step");
    const output = await there.cas.getPayload<Record<string, unknown>>(payload.output);
    const next = evaluate(workflow.graph, payload.role, output);
    if (next.kind !== "fanout") throw new Error("the fixture does not fan out");
    const children: string[] = [];
    for (const [index, item] of next.items.entries()) {
      const thread = childThreadId(parent, step, index, payload.completedAtMs);
      await createThread(there, {
        thread,
        workflow: "parent/review",
        workflowHash: next.fanout.workflow,
        prompt: item.prompt,
        cwd: "/elsewhere/app",
        createdAtMs: payload.completedAtMs,
        parent: { thread: parent, step, index },
      });
      children.push(thread);
    }
    return children;
  }

  it("imports a parent with its children, also those of a fan-out a poke replaced", async () => {
    const { parent, step, children } = await family();
    // A poke: the head step replaced by one of the same role and prev, which fans out again.
    const pointer = await there.threads.get(parent);
    const old = await there.cas.getPayload<StepPayload>(step, "step");
    const poked = await there.cas.put(there.cas.builtin("step"), {
      ...old,
      output: await there.cas.put((await there.cas.get(old.output)).type, {
        $status: "ready",
        files: ["c.ts"],
      }),
      completedAtMs: old.completedAtMs + 10,
    });
    const { rev, ...rest } = pointer;
    await there.threads.swap({ ...rest, head: poked }, rev ?? 0);
    const again = await childrenOf(parent, poked);
    const ids = [parent, ...children, ...again];
    const report = await importBundle(here, await bundleOf(ids), { cwd });
    expect(report.threads.map((t) => [t.thread, t.status])).toEqual(
      ids.map((id) => [id, "imported"]),
    );
    expect((await here.threads.get(children[1]!)).parent).toEqual({
      thread: parent,
      step,
      index: 1,
    });
  });

  type Parent = { thread: string; step: string; index: number };
  const cases: [string, (p: Record<string, unknown>[], stranger: string) => void, string][] = [
    [
      "a thread that is its own parent",
      ([, first]) => {
        (first!.parent as Parent).thread = first!.thread as string;
      },
      "its fan-out parent is the thread itself",
    ],
    [
      "two children naming each other",
      ([, first, second]) => {
        (first!.parent as Parent).thread = second!.thread as string;
        (second!.parent as Parent).thread = first!.thread as string;
      },
      "its fan-out parents go round in a loop",
    ],
    [
      "a child naming its sibling",
      ([, first, second]) => {
        Object.assign(second!.parent as Parent, { thread: first!.thread, step: first!.start });
      },
      "does not fan out after $START.new",
    ],
    [
      "an item the fan-out does not have",
      ([, , second]) => {
        (second!.parent as Parent).index = 2;
      },
      "fans out into 2 items at step",
    ],
    [
      "an item another child is",
      ([, , second]) => {
        (second!.parent as Parent).index = 0;
      },
      "for item 0 of its fan-out at step",
    ],
    [
      "a step that is not the fan-out's",
      ([parent, , second]) => {
        (second!.parent as Parent).step = parent!.start as string;
      },
      "does not fan out after $START.new",
    ],
    [
      "a step of no chain",
      ([, first, second]) => {
        (second!.parent as Parent).step = first!.start as string;
      },
      "has no step",
    ],
    [
      "a parent that is nowhere",
      ([, first], stranger) => {
        (first!.parent as Parent).thread = stranger;
      },
      "is neither in the bundle nor in this store",
    ],
  ];

  it.each(cases)("refuses %s, and writes nothing", async (_, edit, words) => {
    const { parent, children } = await family();
    const bundle = await bundleOf([parent, ...children]);
    const [first, ...rest] = bundle.split("\n");
    const header = JSON.parse(first!);
    edit(header.threads, newUlid());
    const bad = [JSON.stringify(header), ...rest].join("\n");
    const { code, message } = await refusal(importBundle(here, bad, { cwd }));
    expect(code).toBe("BUNDLE_INVALID");
    expect(message).toContain(words);
    expect(message).toContain("nothing was imported");
    await nothingHere();
  });

  it("takes a child under a parent only here when it is that parent's, and no other thread", async () => {
    const { parent, children } = await family();
    await importBundle(here, await bundleOf([parent]), { cwd });
    const before = await here.threads.list();

    // Another thread dressed as the parent's child for item 0: refused, nothing written.
    const stranger = await written();
    const item0 = (await there.threads.get(children[0]!)).parent!;
    const forged = edited(await bundleOf([stranger]), (p) => {
      p.parent = { ...item0 };
    });
    const { code, message } = await refusal(importBundle(here, forged, { cwd }));
    expect(code).toBe("BUNDLE_INVALID");
    expect(message).toContain(
      `its fan-out parent ${parent} (in this store) makes thread ${children[0]} for item 0`,
    );
    expect(await here.threads.list()).toEqual(before);

    // The child that fan-out makes, exported alone: it is the parent's.
    const report = await importBundle(here, await bundleOf([children[0]!]), { cwd });
    expect(report.threads.map((t) => [t.thread, t.status])).toEqual([[children[0], "imported"]]);
  });
});
