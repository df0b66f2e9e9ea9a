import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { UwfEvent } from "@united-workforce/protocol";
import {
  type FanoutFailureRule,
  isThreadId,
  type JsonSchema,
  type RolePayload,
  type StepPayload,
  type ThreadPointer,
  type WorkflowPayload,
  workflowNodeKind,
} from "@united-workforce/protocol";
import { openStore, type Store } from "@united-workforce/store";
import { seedThread, type TempHome, tempHome } from "@united-workforce/test-utils";
import { createEventStream, eventLogWriter, ulidTime } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testRun } from "../__testing__/run-context.js";
import type { RunContext } from "../steps/context.js";
import { childThreadId, fanoutChildren } from "../steps/fanout/children.js";
import { fanoutLeaseCommand, takeThread } from "../threads/lease.js";
import { stopHolder } from "../threads/stop-holder.js";
import { ensureChildWorktree } from "../worktrees/git-worktree.js";
import { answerThread } from "./answer.js";
import { type RunOptions, runSteps } from "./run-loop.js";

let temp: TempHome;
let store: Store;
beforeEach(async () => {
  temp = tempHome();
  store = await openStore({ home: temp.home });
});
afterEach(async () => {
  await store.close();
  temp.cleanup();
});

/**
 * A child's command: records that it ran (runs.log) and how many children were live when it
 * started (live.log); the first `barrier` items wait until that many have started (so a limit
 * below it would never let them through); an item fails while `fail-<index>` exists.
 */
const CHILD_SCRIPT = `
const fs = require("node:fs"), path = require("node:path");
const [dir, barrierText] = process.argv.slice(2);
const task = process.env.UWF_TASK;
const index = Number(/item (\\d+)/.exec(task)[1]);
fs.appendFileSync(path.join(dir, "runs.log"), index + "\\n");
const live = path.join(dir, "live");
fs.mkdirSync(live, { recursive: true });
fs.writeFileSync(path.join(live, String(index)), "");
const count = () => fs.readdirSync(live).length;
fs.appendFileSync(path.join(dir, "live.log"), count() + "\\n");
const started = path.join(dir, "started");
fs.mkdirSync(started, { recursive: true });
fs.writeFileSync(path.join(started, String(index)), "");
const barrier = Number(barrierText || 0);
const deadline = Date.now() + 60000;
function finish() {
  fs.rmSync(path.join(live, String(index)));
  if (fs.existsSync(path.join(dir, "fail-" + index))) {
    console.error("item " + index + " failed on purpose");
    process.exit(1);
  }
  console.log(JSON.stringify({ $status: "done", task }));
}
(function poll() {
  if (index < barrier && fs.readdirSync(started).length < barrier) {
    if (Date.now() > deadline) { console.error("barrier never reached"); process.exit(2); }
    setTimeout(poll, 10);
  } else finish();
})();
`;

type RoleFixture = Omit<RolePayload, "frontmatter"> & { frontmatter: JsonSchema };

async function putWorkflow(
  name: string,
  roles: Record<string, RoleFixture>,
  graph: WorkflowPayload["graph"],
  inputs?: JsonSchema,
): Promise<string> {
  const stored: Record<string, RolePayload> = {};
  for (const [role, def] of Object.entries(roles)) {
    stored[role] = { ...def, frontmatter: await store.cas.putSchema(def.frontmatter) };
  }
  const payload: WorkflowPayload = { name, roles: stored, graph };
  if (inputs !== undefined) payload.inputs = await store.cas.putSchema(inputs);
  return store.cas.put(store.cas.builtin(workflowNodeKind(payload)), payload);
}

const JOIN_SCHEMA: JsonSchema = {
  type: "object",
  required: ["$status", "results"],
  properties: { $status: { enum: ["done", "partial"] }, results: { type: "array" } },
};

function childRole(dir: string, barrier = 0): RoleFixture {
  const script = join(dir, "child.cjs");
  writeFileSync(script, CHILD_SCRIPT);
  return {
    run: [process.execPath, script, dir, String(barrier)],
    frontmatter: {
      type: "object",
      required: ["$status"],
      properties: { $status: { const: "done" }, task: { type: "string" } },
    },
  };
}

/** The one-role workflow a `fanout: { role: review }` is stored as. */
async function reviewWorkflow(dir: string, barrier = 0): Promise<string> {
  return putWorkflow(
    "parent/review",
    { review: childRole(dir, barrier) },
    {
      $START: { new: { role: "review", prompt: "Carry out the task given to this thread." } },
      review: { done: { role: "$END", prompt: "Done." } },
    },
  );
}

/** A parent whose plan (a script) lists `items`, fanned out to `child`, joined by collect. */
async function parentThread(options: {
  items: unknown[];
  child: string;
  concurrency?: number;
  failure?: FanoutFailureRule;
  joinSchema?: JsonSchema;
}): Promise<string> {
  const { thread } = await seedThread(store, {
    workflow: {
      name: "parent",
      roles: {
        plan: {
          run: [
            process.execPath,
            "-e",
            `console.log(JSON.stringify({ $status: "ready", files: ${JSON.stringify(options.items)} }))`,
          ],
          frontmatter: {
            type: "object",
            required: ["$status", "files"],
            properties: { $status: { const: "ready" }, files: { type: "array" } },
          },
        },
        collect: { join: true, frontmatter: options.joinSchema ?? JOIN_SCHEMA },
      },
      graph: {
        $START: { new: { role: "plan", prompt: "Plan." } },
        plan: {
          ready: {
            role: "collect",
            prompt: "item {{{index}}} {{{item}}}",
            fanout: {
              workflow: options.child,
              over: "{{{files}}}",
              ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
              ...(options.failure === undefined ? {} : { failure: options.failure }),
            },
          },
        },
        collect: {
          done: { role: "$END", prompt: "All {{{completed}}} in." },
          partial: { role: "$END", prompt: "{{{completed}}} in, {{{failed}}} failed." },
        },
      },
    },
    prompt: "Review the repo",
    cwd: temp.home,
  });
  return thread;
}

function engineWith(events: UwfEvent[] = []): RunContext {
  return testRun({
    store,
    cwd: temp.home,
    config: () => ({}),
    env: { PATH: process.env.PATH, UWF_ADAPTER_WATCH_PARENT: "0" },
    events: createEventStream(eventLogWriter(temp.home, { command: "test" }), (event) =>
      events.push(event),
    ),
    signal: new AbortController().signal,
  });
}

async function exec(
  thread: string,
  options: Partial<RunOptions> = {},
  events: UwfEvent[] = [],
): Promise<Awaited<ReturnType<typeof runSteps>>> {
  const lease = await takeThread(store, thread, "test");
  try {
    return await runSteps(engineWith(events), thread, { count: 5, lease, ...options });
  } finally {
    await lease.release();
  }
}

/** What `thread resume` runs first on a parent suspended by its fan-out or its join. */
function resumeFirst(pointer: ThreadPointer): Partial<RunOptions> {
  const info = pointer.suspended!;
  return {
    first: {
      role: info.role,
      prompt: info.prompt ?? info.reason,
      location: null,
      prev: pointer.head === pointer.start ? null : pointer.head,
      replaceHead: false,
    },
  };
}

async function headOutput(thread: string): Promise<Record<string, unknown>> {
  const pointer = await store.threads.get(thread);
  const step = await store.cas.getPayload<StepPayload>(pointer.head, "step");
  return store.cas.getPayload<Record<string, unknown>>(step.output);
}

function runsOf(dir: string): number[] {
  const path = join(dir, "runs.log");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8").trim().split("\n").filter(Boolean).map(Number);
}

describe("fan-out", () => {
  it("runs one child per item and joins every result in index order", async () => {
    const dir = temp.home;
    const parent = await parentThread({
      items: ["a.ts", "b.ts", "c.ts"],
      child: await reviewWorkflow(dir),
    });
    const events: UwfEvent[] = [];
    const summary = await exec(parent, {}, events);
    expect(summary.stoppedBecause).toBe("completed");
    expect(summary.steps.map((s) => [s.role, s.status, s.agent])).toEqual([
      ["plan", "ready", "script"],
      ["collect", "done", "join"],
    ]);
    const output = await headOutput(parent);
    expect(output).toMatchObject({ $status: "done", completed: 3, failed: 0 });
    const results = output.results as Record<string, unknown>[];
    expect(results.map((r) => [r.index, r.item, r.status])).toEqual([
      [0, "a.ts", "completed"],
      [1, "b.ts", "completed"],
      [2, "c.ts", "completed"],
    ]);
    expect(results.map((r) => (r.output as { task: string }).task)).toEqual([
      "item 0 a.ts",
      "item 1 b.ts",
      "item 2 c.ts",
    ]);
    // Each child is a thread of its own, completed, naming its parent; ids are derived.
    const pointer = await store.threads.get(parent);
    const planStep = (await store.cas.getPayload<StepPayload>(pointer.head, "step")).prev!;
    const planned = await store.cas.getPayload<StepPayload>(planStep, "step");
    for (const [index, result] of results.entries()) {
      const id = result.thread as string;
      expect(isThreadId(id)).toBe(true);
      expect(id).toBe(childThreadId(parent, planStep, index, planned.completedAtMs));
      // One millisecond per item: each child's first ten characters are its own.
      expect(ulidTime(id)).toBe(planned.completedAtMs + index);
      const child = await store.threads.get(id);
      expect(child).toMatchObject({
        status: "completed",
        steps: 1,
        workflow: "parent/review",
        parent: { thread: parent, step: planStep, index },
      });
    }
    expect(events.filter((e) => e.event.startsWith("fanout.")).map((e) => e.event)).toEqual([
      "fanout.started",
      "fanout.child",
      "fanout.child",
      "fanout.child",
      "fanout.joined",
    ]);
    // The join is the parent's last step, and says which.
    expect(events.find((e) => e.event === "fanout.joined")).toMatchObject({
      role: "collect",
      stepNumber: pointer.steps,
      completed: 3,
      failed: 0,
    });
    // The children's steps are reported under their own thread ids.
    const stepThreads = new Set(events.filter((e) => e.event === "step.done").map((e) => e.thread));
    expect(stepThreads.size).toBe(4);
    expect(await fanoutChildren(engineWith(), await store.threads.get(parent))).toBeNull();
    // The children's log lines name their parent (`thread watch <parent>` follows them).
    const logs = readdirSync(join(temp.home, "logs")).map((f) =>
      readFileSync(join(temp.home, "logs", f), "utf8"),
    );
    const childDone = logs
      .join("")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.event === "step.done" && line.thread !== parent);
    expect(childDone).toHaveLength(3);
    for (const line of childDone) expect(line.parent).toBe(parent);
  });

  it("runs at most `concurrency` children at once, and that many together", async () => {
    const dir = temp.home;
    // The first 3 items wait until 3 children are live at once: a lower limit never joins.
    const parent = await parentThread({
      items: ["a", "b", "c", "d", "e", "f", "g"],
      child: await reviewWorkflow(dir, 3),
      concurrency: 3,
    });
    const summary = await exec(parent);
    expect(summary.stoppedBecause).toBe("completed");
    const live = readFileSync(join(dir, "live.log"), "utf8").trim().split("\n").map(Number);
    expect(live).toHaveLength(7);
    expect(Math.max(...live)).toBe(3);
    expect(runsOf(dir).sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("under `all`, stops launching at a failure, suspends the parent, and resume re-runs only the failed child", async () => {
    const dir = temp.home;
    writeFileSync(join(dir, "fail-1"), "");
    const parent = await parentThread({
      items: ["a", "b", "c", "d"],
      child: await reviewWorkflow(dir),
      concurrency: 1,
    });
    const summary = await exec(parent);
    expect(summary.stoppedBecause).toBe("failed");
    expect(runsOf(dir)).toEqual([0, 1]);
    const pointer = await store.threads.get(parent);
    expect(pointer.status).toBe("suspended");
    expect(pointer.suspended).toMatchObject({ kind: "fanout", role: "collect" });
    const reason = pointer.suspended!.reason;
    expect(reason).toContain("1 child failed (failure: all needs every child to complete)");
    expect(reason).toMatch(/child \w{26} \(item 1\) failed at role "review": \S/);
    expect(reason).toContain(`uwf thread resume ${parent}`);
    expect(summary.fanouts![0]!.children.map((c) => c.status)).toEqual([
      "completed",
      "failed",
      "pending",
      "pending",
    ]);
    // exec alone does not retry the failed child: the parent stays as it is.
    const again = await exec(parent);
    expect(again.stoppedBecause).toBe("failed");
    expect(runsOf(dir)).toEqual([0, 1]);

    rmSync(join(dir, "fail-1"));
    const resumed = await exec(parent, resumeFirst(await store.threads.get(parent)));
    expect(resumed.stoppedBecause).toBe("completed");
    // Item 0 completed before: it did not run again.
    expect(runsOf(dir)).toEqual([0, 1, 1, 2, 3]);
    const output = await headOutput(parent);
    expect(output).toMatchObject({ $status: "done", completed: 4, failed: 0 });
    const failedChild = (output.results as { thread: string }[])[1]!.thread;
    expect(await store.threads.get(failedChild)).toMatchObject({ status: "completed", steps: 1 });
  });

  it("spends the parent run's budget on the children, and resume runs those it stopped", async () => {
    const dir = temp.home;
    const parent = await parentThread({
      items: ["a", "b", "c", "d"],
      child: await reviewWorkflow(dir),
      concurrency: 1,
    });
    // plan, then two children: the third child's first step finds the run's 3 steps spent.
    const summary = await exec(parent, { limits: () => ({ maxSteps: 3 }) });
    expect(summary.stoppedBecause).toBe("suspended");
    expect(runsOf(dir)).toEqual([0, 1]);
    expect(summary.fanouts![0]!.children.map((c) => c.status)).toEqual([
      "completed",
      "completed",
      "waiting",
      "waiting",
    ]);
    const pointer = await store.threads.get(parent);
    expect(pointer.suspended?.reason).toContain("budget: this run reached its step limit (3 of 3)");
    expect(pointer.suspended?.reason).toContain(
      `uwf thread resume ${parent} runs the children this run's budget stopped, with a new budget`,
    );
    const resumed = await exec(parent, resumeFirst(pointer));
    expect(resumed.stoppedBecause).toBe("completed");
    expect(runsOf(dir)).toEqual([0, 1, 2, 3]);
  });

  it("under `continue`, joins as partial with each failure's reason", async () => {
    const dir = temp.home;
    writeFileSync(join(dir, "fail-0"), "");
    writeFileSync(join(dir, "fail-2"), "");
    const parent = await parentThread({
      items: ["a", "b", "c"],
      child: await reviewWorkflow(dir),
      failure: "continue",
    });
    const summary = await exec(parent);
    expect(summary.stoppedBecause).toBe("completed");
    expect(summary.steps.at(-1)).toMatchObject({ role: "collect", status: "partial" });
    const output = await headOutput(parent);
    expect(output).toMatchObject({ $status: "partial", completed: 1, failed: 2 });
    const results = output.results as Record<string, unknown>[];
    expect(results.map((r) => r.status)).toEqual(["failed", "completed", "failed"]);
    expect(results[0]!.output).toBeNull();
    expect(results[0]!.reason).toContain("exited with code 1");
    expect(summary.message).toBe(
      `thread is completed. To run it again from $START.resume: uwf thread resume ${parent}`,
    );
  });

  it("under `any`, joins when one completes and suspends when none does", async () => {
    const dir = temp.home;
    writeFileSync(join(dir, "fail-0"), "");
    const some = await parentThread({
      items: ["a", "b"],
      child: await reviewWorkflow(dir),
      failure: "any",
    });
    expect((await exec(some)).stoppedBecause).toBe("completed");
    expect(await headOutput(some)).toMatchObject({ $status: "partial", completed: 1 });

    writeFileSync(join(dir, "fail-1"), "");
    const none = await parentThread({
      items: ["a", "b"],
      child: await reviewWorkflow(dir),
      failure: "any",
    });
    const summary = await exec(none);
    expect(summary.stoppedBecause).toBe("failed");
    expect((await store.threads.get(none)).suspended?.reason).toContain(
      "no child completed (failure: any needs one to)",
    );
  });

  it("waits for a child's human answer, then joins on the next exec", async () => {
    const child = await putWorkflow(
      "parent/approve",
      {
        approve: {
          agent: "human",
          frontmatter: {
            type: "object",
            required: ["$status"],
            properties: { $status: { const: "approved" } },
          },
        },
      },
      {
        $START: { new: { role: "approve", prompt: "Approve the task." } },
        approve: { approved: { role: "$END", prompt: "Approved." } },
      },
    );
    const parent = await parentThread({ items: ["x"], child });
    const summary = await exec(parent);
    expect(summary.stoppedBecause).toBe("suspended");
    const pointer = await store.threads.get(parent);
    expect(pointer.suspended?.kind).toBe("fanout");
    expect(pointer.suspended?.reason).toContain("waits for a human's answer");
    const [waiting] = summary.fanouts![0]!.children;
    expect(waiting).toMatchObject({ status: "waiting", role: "approve" });
    // `thread show`'s view of the pending fan-out.
    const listed = await fanoutChildren(engineWith(), pointer);
    expect(listed?.children.map((c) => [c.thread, c.pointer?.status])).toEqual([
      [waiting!.thread, "suspended"],
    ]);

    await answerThread(engineWith(), waiting!.thread, { status: "approved", by: "test" });
    const joined = await exec(parent);
    expect(joined.stoppedBecause).toBe("completed");
    expect(await headOutput(parent)).toMatchObject({ $status: "done", completed: 1 });
  });

  it("refuses to stop a child its parent's exec runs, naming the parent to stop", async () => {
    const { thread } = await seedThread(store, {
      workflow: {
        name: "one",
        roles: { r: { frontmatter: { type: "object" } } },
        graph: { $START: { new: { role: "r", prompt: "Go." } } },
      },
      prompt: "x",
      cwd: temp.home,
    });
    const parent = "01M86337EAME88ZGSKK442FHN7";
    const lease = await takeThread(store, thread, fanoutLeaseCommand(parent));
    try {
      const error = await stopHolder(store, thread).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "THREAD_BUSY" });
      expect((error as Error).message).toContain(`run by the fan-out of its parent ${parent}`);
      expect((error as { hint: string }).hint).toContain(`uwf thread stop ${parent}`);
    } finally {
      await lease.release();
    }
  });

  it("fans out from $START (a sub-workflow of one), its child's id from the StartNode's time", async () => {
    const child = await reviewWorkflow(temp.home);
    const createdAtMs = Date.UTC(2026, 0, 2, 3, 4, 5);
    const { thread, start } = await seedThread(store, {
      workflow: {
        name: "wrapper",
        roles: { collect: { join: true, frontmatter: JOIN_SCHEMA } },
        graph: {
          $START: {
            new: { role: "collect", prompt: "item 0 the whole repo", fanout: { workflow: child } },
          },
          collect: { done: { role: "$END", prompt: "Done." } },
        },
      },
      prompt: "Wrap",
      cwd: temp.home,
      createdAtMs,
    });
    const summary = await exec(thread);
    expect(summary.stoppedBecause).toBe("completed");
    const output = await headOutput(thread);
    const [only] = output.results as { thread: string; item: unknown; output: { task: string } }[];
    expect(only).toMatchObject({ item: null, output: { task: "item 0 the whole repo" } });
    expect(only!.thread).toBe(childThreadId(thread, start, 0, createdAtMs));
  });

  it("reuses a child's worktree a crash left before the child's pointer, making no second one", async () => {
    const repo = join(temp.home, "repo");
    mkdirSync(repo);
    const git = (...args: string[]) =>
      execFileSync("git", args, { cwd: repo, encoding: "utf8", env: { PATH: process.env.PATH } });
    git("init", "--quiet");
    git("-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "a");
    const review = childRole(temp.home);
    const payload: WorkflowPayload = {
      name: "parent/review",
      worktree: true,
      roles: { review: { ...review, frontmatter: await store.cas.putSchema(review.frontmatter) } },
      graph: {
        $START: { new: { role: "review", prompt: "Carry out the task given to this thread." } },
        review: { done: { role: "$END", prompt: "Done." } },
      },
    };
    const child = await store.cas.put(store.cas.builtin(workflowNodeKind(payload)), payload);
    const createdAtMs = Date.UTC(2026, 0, 2, 3, 4, 5);
    const { thread, start } = await seedThread(store, {
      workflow: {
        name: "wrapper",
        roles: { collect: { join: true, frontmatter: JOIN_SCHEMA } },
        graph: {
          $START: { new: { role: "collect", prompt: "item 0", fanout: { workflow: child } } },
          collect: { done: { role: "$END", prompt: "Done." } },
        },
      },
      prompt: "Wrap",
      cwd: repo,
      createdAtMs,
    });
    // The crash: the child's worktree was made, its pointer not written.
    const id = childThreadId(thread, start, 0, createdAtMs);
    const env = { PATH: process.env.PATH };
    const crashed = ensureChildWorktree({ home: temp.home, env }, { cwd: repo }, repo, id);
    expect(await store.threads.exists(id)).toBe(false);

    const summary = await exec(thread);
    expect(summary.stoppedBecause).toBe("completed");
    const made = await store.threads.get(id);
    expect(made.worktree).toEqual(crashed.worktree);
    expect(made.cwd).toBe(crashed.cwd);
    const listed = git("worktree", "list", "--porcelain").match(/^worktree /gm) ?? [];
    expect(listed).toHaveLength(2);
  });

  it("gives each item to a child workflow that declares inputs as its inputs, and refuses a bad one", async () => {
    const dir = temp.home;
    const child = await putWorkflow(
      "file-review",
      { review: childRole(dir) },
      {
        $START: { new: { role: "review", prompt: "Review {{{inputs.path}}}." } },
        review: { done: { role: "$END", prompt: "Done." } },
      },
      {
        type: "object",
        required: ["path"],
        additionalProperties: false,
        properties: { path: { type: "string" } },
      },
    );
    const good = await parentThread({ items: [{ path: "a.ts" }, { path: "b.ts" }], child });
    expect((await exec(good)).stoppedBecause).toBe("completed");
    const results = (await headOutput(good)).results as { thread: string }[];
    const second = await store.threads.get(results[1]!.thread);
    const start = await store.cas.getPayload<{ inputs?: unknown }>(second.start, "start");
    expect(start.inputs).toEqual({ path: "b.ts" });

    const bad = await parentThread({ items: [{ path: "a.ts" }, { file: "b.ts" }], child });
    const summary = await exec(bad);
    expect(summary.stoppedBecause).toBe("failed");
    const pointer = await store.threads.get(bad);
    expect(pointer.suspended).toMatchObject({ kind: "failure", role: "collect" });
    expect(pointer.suspended!.reason).toContain("item 1 of the fan-out");
    expect(pointer.suspended!.reason).toContain('missing required input "path"');
  });

  it("fails a parent whose child's own fan-out failed, and resume retries the grandchild", async () => {
    const dir = temp.home;
    writeFileSync(join(dir, "fail-0"), "");
    const mid = await putWorkflow(
      "mid",
      { gather: { join: true, frontmatter: JOIN_SCHEMA } },
      {
        $START: {
          new: {
            role: "gather",
            prompt: "item {{{index}}} nested",
            fanout: { workflow: await reviewWorkflow(dir) },
          },
        },
        gather: { done: { role: "$END", prompt: "Gathered." } },
      },
    );
    const parent = await parentThread({ items: ["a"], child: mid });
    const summary = await exec(parent);
    expect(summary.stoppedBecause).toBe("failed");
    const [child] = summary.fanouts![0]!.children;
    expect(child).toMatchObject({ status: "failed", role: "gather" });
    expect((await store.threads.get(child!.thread)).suspended?.kind).toBe("fanout");
    // Every line of the grandchild names its own parent, the child, not the top of the family.
    const lines = readdirSync(join(dir, "logs")).flatMap((file) =>
      readFileSync(join(dir, "logs", file), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { event: string; thread?: string; parent?: string }),
    );
    const grandchildren = lines.filter(
      (line) => line.event === "thread.start" && line.parent === child!.thread,
    );
    expect(grandchildren).toHaveLength(1);
    const ofGrandchild = lines.filter((line) => line.thread === grandchildren[0]!.thread);
    expect(ofGrandchild.map((line) => line.event)).toContain("step.failed");
    expect(new Set(ofGrandchild.map((line) => line.parent))).toEqual(new Set([child!.thread]));
    expect(
      new Set(lines.filter((line) => line.thread === child!.thread).map((line) => line.parent)),
    ).toEqual(new Set([parent]));

    rmSync(join(dir, "fail-0"));
    const resumed = await exec(parent, resumeFirst(await store.threads.get(parent)));
    expect(resumed.stoppedBecause).toBe("completed");
    expect(runsOf(dir)).toEqual([0, 0]);
    const [result] = (await headOutput(parent)).results as { output: { results: unknown[] } }[];
    expect(result!.output.results).toHaveLength(1);
  });

  it("joins an empty list with zero results", async () => {
    const parent = await parentThread({ items: [], child: await reviewWorkflow(temp.home) });
    const summary = await exec(parent);
    expect(summary.stoppedBecause).toBe("completed");
    expect(await headOutput(parent)).toMatchObject({
      $status: "done",
      results: [],
      completed: 0,
      failed: 0,
    });
  });

  it("suspends the parent with a precise message when the join role's schema refuses the join", async () => {
    const parent = await parentThread({
      items: ["a"],
      child: await reviewWorkflow(temp.home),
      joinSchema: {
        type: "object",
        required: ["$status", "summary"],
        properties: { $status: { enum: ["done", "partial"] }, summary: { type: "string" } },
      },
    });
    const summary = await exec(parent);
    expect(summary.stoppedBecause).toBe("failed");
    const pointer = await store.threads.get(parent);
    expect(pointer.suspended).toMatchObject({ kind: "failure", role: "collect" });
    expect(pointer.suspended!.reason).toContain(
      `the join output uwf wrote from the children's results does not match role "collect"'s frontmatter schema`,
    );
    expect(pointer.suspended!.reason).toContain("summary");
    expect(pointer.currentRole).toBe("plan");
  });
});
