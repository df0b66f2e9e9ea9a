import type { StepPayload, SuspendInfo } from "@united-workforce/protocol";
import { openStore, type Store, type UwfConfig } from "@united-workforce/store";
import {
  appendStep,
  seedThread,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { createEventStream, eventLogWriter } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loop } from "../__fixtures__/workflows.js";
import { testRun } from "../__testing__/run-context.js";
import type { RunContext } from "../steps/context.js";
import type { PlannedStep } from "../steps/planned-step.js";
import { takeThread } from "../threads/lease.js";
import { pendingStep, replacesHead, rerunStep } from "./plans.js";
import { runSteps } from "./run-loop.js";

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

function engine(config: UwfConfig = {}): RunContext {
  return testRun({
    store,
    cwd: temp.home,
    config: () => config,
    env: { PATH: process.env.PATH, UWF_ADAPTER_WATCH_PARENT: "0" },
    events: createEventStream(eventLogWriter(temp.home, { command: "test" })),
    signal: new AbortController().signal,
  });
}

function mockAgent(steps: Parameters<typeof writeScenario>[1], name: string): string {
  const file = writeScenario(temp.home, steps, `${name}.yaml`);
  return `${process.execPath} ${UWF_MOCK_BIN} --scenario ${file}`;
}

/** writer → written, reviewer → changes: the head's route leads back to the writer. */
async function sentBack() {
  const seeded = await seedThread(store, { workflow: loop, prompt: "Go", cwd: temp.home });
  const draft = await appendStep(store, seeded.thread, {
    role: "writer",
    output: { $status: "written", text: "a line" },
  });
  const review = await appendStep(store, seeded.thread, {
    role: "reviewer",
    output: { $status: "changes", notes: "shorter" },
    edgePrompt: "Review: a line",
  });
  return { thread: seeded.thread, draft, review };
}

/** Run one chosen step (what `thread poke` and `thread resume` do) under the thread's lease. */
async function runChosen(thread: string, plan: PlannedStep, agent: string) {
  const lease = await takeThread(store, thread, "test");
  try {
    return await runSteps(engine(), thread, {
      count: 1,
      agentFlag: agent,
      lease,
      first: plan,
    });
  } finally {
    await lease.release();
  }
}

/** The reviewer poked as `thread poke` plans it: in the head's place. */
async function pokePlan(review: string): Promise<PlannedStep> {
  const head = await store.cas.getPayload<StepPayload>(review, "step");
  return {
    role: head.role,
    prompt: `${head.edgePrompt}\n\n## Additional instructions\nBe strict.`,
    location: head.cwd,
    prev: head.prev,
    replaceHead: true,
  };
}

describe("a failed poke", () => {
  it("is recorded as replacing the head, and runs again in the head's place", async () => {
    const { thread, draft, review } = await sentBack();
    const crash = mockAgent(
      [
        { role: "writer", output: { $status: "written", text: "unused" } },
        { role: "reviewer", exit: 1, stderr: "boom" },
      ],
      "crash",
    );
    const failed = await runChosen(thread, await pokePlan(review), crash);
    expect(failed.stoppedBecause).toBe("failed");
    const suspended = await store.threads.get(thread);
    expect(suspended).toMatchObject({ head: review, status: "suspended", steps: 2 });
    expect(suspended.suspended).toMatchObject({
      role: "reviewer",
      kind: "failure",
      replaceHead: true,
    });
    expect(await pendingStep(engine().router, suspended)).toEqual({
      role: "reviewer",
      replaceHead: true,
    });

    const again = await rerunStep(engine().router, suspended, suspended.suspended!, "retry");
    expect(again).toMatchObject({ role: "reviewer", prev: draft, replaceHead: true });

    const approve = mockAgent(
      [
        { role: "writer", output: { $status: "written", text: "unused" } },
        { role: "reviewer", output: { $status: "approved" } },
      ],
      "approve",
    );
    const done = await runChosen(thread, again, approve);
    expect(done.stoppedBecause, done.message).toBe("completed");
    const after = await store.threads.get(thread);
    expect(after).toMatchObject({ status: "completed", steps: 2, suspended: null });
    const head = await store.cas.getPayload<StepPayload>(after.head, "step");
    expect(head).toMatchObject({ role: "reviewer", prev: draft });
  });

  it("is retried in the head's place after transient failures too", async () => {
    const { thread, draft, review } = await sentBack();
    const busy = mockAgent(
      [
        { role: "writer", output: { $status: "written", text: "unused" } },
        { role: "reviewer", transient: 1, output: { $status: "approved" } },
      ],
      "busy",
    );
    const plan = await pokePlan(review);
    const lease = await takeThread(store, thread, "test");
    // No retry within the run: the thread waits for its retry time at once.
    const noRetries = engine({ retry: { maxRetries: 0 } });
    await runSteps(noRetries, thread, { count: 1, agentFlag: busy, lease, first: plan });
    await lease.release();
    const suspended = await store.threads.get(thread);
    expect(suspended.suspended).toMatchObject({ kind: "retry", replaceHead: true });
    // What `thread exec --wait` runs once the retry time has come.
    expect(await rerunStep(engine().router, suspended, suspended.suspended!, "p")).toMatchObject({
      role: "reviewer",
      prev: draft,
      replaceHead: true,
    });
  });
});

describe("the step a failure runs again", () => {
  it("follows the head when it is the role the head leads to", async () => {
    const { thread, review } = await sentBack();
    const crash = mockAgent(
      [
        { role: "writer", output: { $status: "written", text: "unused" } },
        { role: "reviewer", output: { $status: "changes", notes: "unused" } },
        { role: "writer", exit: 1 },
      ],
      "crash",
    );
    const lease = await takeThread(store, thread, "test");
    await runSteps(engine(), thread, { count: 1, agentFlag: crash, lease });
    await lease.release();
    const suspended = await store.threads.get(thread);
    expect(suspended.suspended).toMatchObject({ role: "writer", kind: "failure" });
    expect(suspended.suspended).not.toHaveProperty("replaceHead");
    expect(await pendingStep(engine().router, suspended)).toEqual({
      role: "writer",
      replaceHead: false,
    });
    expect(await rerunStep(engine().router, suspended, suspended.suspended!, "p")).toMatchObject({
      role: "writer",
      prev: review,
      replaceHead: false,
    });
  });

  it("replaces the head for a failed poke recorded before uwf marked it", async () => {
    const { thread, draft } = await sentBack();
    const pointer = await store.threads.get(thread);
    // What an older uwf stored after the reviewer's poke failed: no `replaceHead`.
    const info: SuspendInfo = {
      role: "reviewer",
      reason: "agent exited with code 1",
      kind: "failure",
      prompt: "Review: a line\n\n## Additional instructions\nBe strict.",
      location: temp.home,
    };
    const legacy = await store.threads.swap(
      { ...pointer, status: "suspended", suspended: info },
      pointer.rev ?? 0,
    );
    expect(await replacesHead(engine().router, legacy!, info)).toBe(true);
    expect(await rerunStep(engine().router, legacy!, info, "p")).toMatchObject({
      role: "reviewer",
      prev: draft,
      replaceHead: true,
    });
    // The writer, where the head leads, is an ordinary failed step: it follows the head.
    expect(await replacesHead(engine().router, legacy!, { ...info, role: "writer" })).toBe(false);
  });
});

describe("pendingStep", () => {
  it("names the routed role of an idle thread, and nothing for a completed one", async () => {
    const { thread } = await sentBack();
    const idle = await store.threads.get(thread);
    expect(await pendingStep(engine().router, idle)).toEqual({
      role: "writer",
      replaceHead: false,
    });
    expect(await pendingStep(engine().router, { ...idle, status: "completed" })).toBeNull();
  });

  it("names the role a first step's failure runs again", async () => {
    const seeded = await seedThread(store, { workflow: loop, prompt: "Go", cwd: temp.home });
    const lease = await takeThread(store, seeded.thread, "test");
    await runSteps(engine(), seeded.thread, {
      count: 1,
      agentFlag: mockAgent([{ role: "writer", exit: 1 }], "crash"),
      lease,
    });
    await lease.release();
    const suspended = await store.threads.get(seeded.thread);
    expect(suspended.status).toBe("suspended");
    expect(await pendingStep(engine().router, suspended)).toEqual({
      role: "writer",
      replaceHead: false,
    });
  });
});

describe("a chosen step off the route", () => {
  it("is refused before anything runs or is written", async () => {
    const { thread, review } = await sentBack();
    const before = await store.threads.get(thread);
    // The reviewer after its own "changes": what resume ran for a failed poke before the fix.
    const plan: PlannedStep = {
      role: "reviewer",
      prompt: "Review again.",
      location: null,
      prev: review,
      replaceHead: false,
    };
    const never = mockAgent([], "never");
    await expect(runChosen(thread, plan, never)).rejects.toMatchObject({
      code: "THREAD_STATE",
      message: `thread ${thread} cannot run role "reviewer" after step ${review}: "reviewer" answered "changes", which leads to "writer"; nothing was run or written`,
    });
    expect(await store.threads.get(thread)).toEqual(before);
  });
});
