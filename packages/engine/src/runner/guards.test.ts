import type { UwfEvent } from "@united-workforce/protocol";
import { openStore, type Store } from "@united-workforce/store";
import {
  seedThread,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  type WorkflowFixture,
  writeScenario,
} from "@united-workforce/test-utils";
import { createEventStream, eventLogWriter } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testRun } from "../__testing__/run-context.js";
import type { RunContext } from "../steps/context.js";
import { takeThread } from "../threads/lease.js";
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

/** Two roles that bounce forever: only a guard stops them. */
const pingPong = (guards: { maxSteps?: number; pingVisits?: number }): WorkflowFixture => ({
  name: "ping-pong",
  ...(guards.maxSteps === undefined ? {} : { maxSteps: guards.maxSteps }),
  roles: {
    ping: {
      frontmatter: { properties: { $status: { const: "hit" } }, required: ["$status"] },
      ...(guards.pingVisits === undefined ? {} : { maxVisits: guards.pingVisits }),
    },
    pong: { frontmatter: { properties: { $status: { const: "hit" } }, required: ["$status"] } },
  },
  graph: {
    $START: { new: { role: "ping", prompt: "Serve." }, resume: { role: "ping", prompt: "Serve." } },
    ping: { hit: { role: "pong", prompt: "Return it." } },
    pong: { hit: { role: "ping", prompt: "Return it." } },
  },
});

const rally = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    role: i % 2 === 0 ? "ping" : "pong",
    output: { $status: "hit" },
  }));

function engineWith(
  events: UwfEvent[],
  config: Record<string, unknown> = {},
  slept: number[] = [],
): RunContext {
  return testRun({
    store,
    cwd: temp.home,
    config: () => config,
    env: { PATH: process.env.PATH, UWF_ADAPTER_WATCH_PARENT: "0" },
    events: createEventStream(eventLogWriter(temp.home, { command: "test" }), (event) =>
      events.push(event),
    ),
    signal: new AbortController().signal,
    // No real waiting: the delays asked for are recorded.
    sleep: async (ms) => {
      slept.push(ms);
    },
  });
}

async function run(
  engine: RunContext,
  thread: string,
  agent: string,
  more: Partial<RunOptions> = {},
) {
  const lease = await takeThread(store, thread, "test");
  try {
    return await runSteps(engine, thread, { count: 50, agentFlag: agent, lease, ...more });
  } finally {
    await lease.release();
  }
}

const mock = (steps: Parameters<typeof writeScenario>[1]) =>
  `${process.execPath} ${UWF_MOCK_BIN} --scenario ${writeScenario(temp.home, steps)}`;

describe("workflow guards", () => {
  it("suspends before the step that would pass maxSteps, counted over the whole chain", async () => {
    const { thread } = await seedThread(store, {
      workflow: pingPong({ maxSteps: 3 }),
      prompt: "Go",
      cwd: temp.home,
    });
    const agent = mock(rally(6));
    const events: UwfEvent[] = [];
    // Two runs: the count is the thread's, not the run's.
    expect((await run(engineWith(events), thread, agent, { count: 2 })).stoppedBecause).toBe(
      "count",
    );
    const summary = await run(engineWith(events), thread, agent);
    expect(summary.stoppedBecause).toBe("guard");
    expect(summary.steps).toHaveLength(1);
    expect(summary.message).toContain("the thread has taken 3 steps, its workflow's maxSteps is 3");
    const pointer = await store.threads.get(thread);
    expect(pointer.steps).toBe(3);
    expect(pointer.suspended).toMatchObject({ kind: "guard", guard: "maxSteps", role: "pong" });
    expect(events.at(-1)).toMatchObject({ event: "thread.suspended", kind: "guard", role: "pong" });
  });

  it("suspends before a role's visit past its maxVisits, and a resume lifts that guard for its run", async () => {
    const { thread } = await seedThread(store, {
      workflow: pingPong({ pingVisits: 2 }),
      prompt: "Go",
      cwd: temp.home,
    });
    const agent = mock(rally(7));
    const summary = await run(engineWith([]), thread, agent);
    // ping, pong, ping, pong: the third ping waits.
    expect(summary.stoppedBecause).toBe("guard");
    expect(summary.steps.map((s) => s.role)).toEqual(["ping", "pong", "ping", "pong"]);
    let pointer = await store.threads.get(thread);
    expect(pointer.suspended).toMatchObject({
      kind: "guard",
      guard: "maxVisits",
      role: "ping",
      reason: 'role "ping" has reached its maxVisits of 2 steps in this thread',
    });

    // The human decides: the resumed run goes past the guard...
    const info = pointer.suspended!;
    const resumed = await run(engineWith([]), thread, agent, {
      count: 2,
      first: {
        role: info.role,
        prompt: info.prompt ?? "",
        location: null,
        prev: pointer.head,
        replaceHead: false,
      },
      liftedGuard: { guard: "maxVisits", role: "ping" },
    });
    expect(resumed.steps.map((s) => s.role)).toEqual(["ping", "pong"]);
    // ...and the next exec checks it again before ping's fourth visit.
    const again = await run(engineWith([]), thread, agent);
    expect(again.stoppedBecause).toBe("guard");
    expect(again.steps).toEqual([]);
    pointer = await store.threads.get(thread);
    expect(pointer.suspended?.reason).toBe(
      'role "ping" has reached its maxVisits of 2 steps in this thread',
    );
  });
});

describe("guards on a human role", () => {
  /** An agent that works and a human who sends it back: only the reviewer's maxVisits stops them. */
  const reviewLoop = (reviewVisits: number, maxSteps?: number): WorkflowFixture => ({
    name: "review-loop",
    ...(maxSteps === undefined ? {} : { maxSteps }),
    roles: {
      worker: {
        frontmatter: { properties: { $status: { const: "done" } }, required: ["$status"] },
      },
      reviewer: {
        agent: "human",
        maxVisits: reviewVisits,
        frontmatter: { properties: { $status: { const: "again" } }, required: ["$status"] },
      },
    },
    graph: {
      $START: {
        new: { role: "worker", prompt: "Work." },
        resume: { role: "worker", prompt: "Work." },
      },
      worker: { done: { role: "reviewer", prompt: "Review it." } },
      reviewer: { again: { role: "worker", prompt: "Once more." } },
    },
  });
  const worked = (n: number) =>
    Array.from({ length: n }, () => ({ role: "worker", output: { $status: "done" } }));

  it("suspends before a human role's visit past its maxVisits; resume lifts it, then the human answers", async () => {
    const { thread } = await seedThread(store, {
      workflow: reviewLoop(1),
      prompt: "Go",
      cwd: temp.home,
    });
    const agent = mock(worked(3));
    const engine = engineWith([]);
    // The first visit: the thread waits for the human at once.
    expect((await run(engine, thread, agent)).stoppedBecause).toBe("suspended");
    let pointer = await store.threads.get(thread);
    expect(pointer.suspended).toMatchObject({ kind: "human", role: "reviewer" });
    await answerThread(engine, thread, { status: "again", by: "test" });

    // The second visit would pass maxVisits 1: a guard, not a question. The guard is found as
    // the worker's step settles, and the run says it stopped on the guard.
    const summary = await run(engineWith([]), thread, agent);
    expect(summary.stoppedBecause).toBe("guard");
    expect(summary.message).toContain('guard, before role "reviewer"');
    expect(summary.steps.map((s) => s.role)).toEqual(["worker"]);
    pointer = await store.threads.get(thread);
    expect(pointer.suspended).toMatchObject({
      kind: "guard",
      guard: "maxVisits",
      role: "reviewer",
      reason: 'role "reviewer" has reached its maxVisits of 1 steps in this thread',
    });
    await expect(answerThread(engine, thread, { status: "again", by: "test" })).rejects.toThrow(
      /is not waiting for a human answer/,
    );

    // The human decides to go past it: the resumed run asks the reviewer again.
    const info = pointer.suspended!;
    const resumed = await run(engineWith([]), thread, agent, {
      first: {
        role: info.role,
        prompt: info.prompt ?? "",
        location: null,
        prev: pointer.head,
        replaceHead: false,
      },
      liftedGuard: { guard: "maxVisits", role: "reviewer" },
    });
    expect(resumed.stoppedBecause).toBe("suspended");
    pointer = await store.threads.get(thread);
    expect(pointer.suspended).toMatchObject({ kind: "human", role: "reviewer" });
    const answered = await answerThread(engine, thread, { status: "again", by: "test" });
    expect(answered.step.role).toBe("reviewer");
    expect((await store.threads.get(thread)).steps).toBe(4);
  });

  it("a human role past the workflow's maxSteps waits on the guard too", async () => {
    const { thread } = await seedThread(store, {
      workflow: reviewLoop(10, 1),
      prompt: "Go",
      cwd: temp.home,
    });
    const events: UwfEvent[] = [];
    const summary = await run(engineWith(events), thread, mock(worked(1)));
    expect(summary.stoppedBecause).toBe("guard");
    expect(events.at(-1)).toMatchObject({
      event: "thread.suspended",
      kind: "guard",
      role: "reviewer",
    });
    expect(summary.steps.map((s) => s.role)).toEqual(["worker"]);
    const pointer = await store.threads.get(thread);
    expect(pointer.suspended).toMatchObject({ kind: "guard", guard: "maxSteps", role: "reviewer" });
  });
});

describe("transient agent failures", () => {
  it("retries the step with doubling waits, then stores it as one step", async () => {
    const { thread } = await seedThread(store, {
      workflow: pingPong({}),
      prompt: "Go",
      cwd: temp.home,
    });
    const agent = mock([{ role: "ping", transient: 2, output: { $status: "hit" } }]);
    const events: UwfEvent[] = [];
    const slept: number[] = [];
    const config = { retry: { maxRetries: 3, delaySeconds: 2, maxDelaySeconds: 60 } };
    const summary = await run(engineWith(events, config, slept), thread, agent, { count: 1 });
    expect(summary.stoppedBecause).toBe("count");
    expect(summary.steps.map((s) => s.role)).toEqual(["ping"]);
    expect(slept).toEqual([2000, 4000]);
    const retries = events.filter((e) => e.event === "step.retry");
    expect(retries).toEqual([
      expect.objectContaining({ retry: 1, maxRetries: 3, delayMs: 2000 }),
      expect.objectContaining({ retry: 2, maxRetries: 3, delayMs: 4000 }),
    ]);
    expect(retries[0]).toMatchObject({ reason: expect.stringContaining("rate limited (HTTP 429") });
    expect((await store.threads.get(thread)).steps).toBe(1);
  });

  it("suspends with a retry-after time once the retries run out; the head does not move", async () => {
    const { thread, start } = await seedThread(store, {
      workflow: pingPong({}),
      prompt: "Go",
      cwd: temp.home,
    });
    const agent = mock([{ role: "ping", transient: 5, output: { $status: "hit" } }]);
    const slept: number[] = [];
    const config = { retry: { maxRetries: 2, delaySeconds: 1, maxDelaySeconds: 3 } };
    const before = Date.now();
    const summary = await run(engineWith([], config, slept), thread, agent);
    expect(summary.stoppedBecause).toBe("failed");
    expect(slept).toEqual([1000, 2000]);
    const pointer = await store.threads.get(thread);
    expect(pointer.head).toBe(start);
    expect(pointer.suspended).toMatchObject({ kind: "retry", role: "ping", prompt: "Serve." });
    // Three tries failed; the next wait (4 s, capped to 3 s) is when it may run again.
    expect(summary.message).toContain("failed transiently 3 times");
    const after = Date.parse(pointer.suspended!.retryAfter!);
    expect(after).toBeGreaterThanOrEqual(before + 3000);
    expect(after).toBeLessThan(Date.now() + 3000 + 1000);
  });

  it("waits no less than the adapter asks; a wait beyond maxDelaySeconds suspends at once", async () => {
    const { thread } = await seedThread(store, {
      workflow: pingPong({}),
      prompt: "Go",
      cwd: temp.home,
    });
    const agent = mock([
      { role: "ping", transient: 1, retry_after: 3600, output: { $status: "hit" } },
    ]);
    const slept: number[] = [];
    const before = Date.now();
    const summary = await run(engineWith([], {}, slept), thread, agent);
    expect(summary.stoppedBecause).toBe("failed");
    expect(slept).toEqual([]);
    const pointer = await store.threads.get(thread);
    expect(pointer.suspended?.kind).toBe("retry");
    expect(Date.parse(pointer.suspended!.retryAfter!)).toBeGreaterThanOrEqual(before + 3_600_000);
  });
});
