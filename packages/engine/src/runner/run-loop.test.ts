import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StepPayload, UwfEvent } from "@united-workforce/protocol";
import { openStore, type Store } from "@united-workforce/store";
import {
  seedThread,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  waitUntilGone,
  writeScenario,
} from "@united-workforce/test-utils";
import { createEventStream, eventLogWriter } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WarmNodes } from "../__fixtures__/warm-nodes.js";
import { relay } from "../__fixtures__/workflows.js";
import { testRun } from "../__testing__/run-context.js";
import type { RunContext } from "../steps/context.js";
import { takeThread } from "../threads/lease.js";
import { runSteps } from "./run-loop.js";
import { terminalReason } from "./stop-reasons.js";

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

function engineWith(events: UwfEvent[], signal = new AbortController().signal): RunContext {
  return testRun({
    store,
    cwd: temp.home,
    config: () => ({}),
    env: { PATH: process.env.PATH, UWF_ADAPTER_WATCH_PARENT: "0" },
    signal,
    events: createEventStream(eventLogWriter(temp.home, { command: "test" }), (event) =>
      events.push(event),
    ),
  });
}

function mockAgent(steps: Parameters<typeof writeScenario>[1]): string {
  return `${process.execPath} ${UWF_MOCK_BIN} --scenario ${writeScenario(temp.home, steps)}`;
}

describe("runSteps", () => {
  it("reports each step as typed events, in order, and completes the thread", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    const events: UwfEvent[] = [];
    const engine = engineWith(events);
    const agent = mockAgent([
      { role: "writer", output: { $status: "written", text: "a line" }, stderr: "thinking" },
      {
        role: "reviewer",
        output: { $status: "approved" },
        usage: { inputTokens: 7, costUsd: 0.5 },
      },
    ]);
    const lease = await takeThread(store, thread, "test");
    const summary = await runSteps(engine, thread, { count: 5, agentFlag: agent, lease });
    await lease.release();

    expect(summary.stoppedBecause).toBe("completed");
    expect(summary.steps.map((s) => [s.role, s.status])).toEqual([
      ["writer", "written"],
      ["reviewer", "approved"],
    ]);
    expect(events.map((e) => e.event)).toEqual([
      "step.start",
      "adapter.output",
      "step.done",
      "step.start",
      "step.done",
      "thread.completed",
    ]);
    expect(events[0]).toMatchObject({ thread, role: "writer", agent: "uwf-mock", stepNumber: 1 });
    expect(events[1]).toMatchObject({ role: "writer", line: "thinking" });
    expect(events[3]).toMatchObject({ role: "reviewer", stepNumber: 2 });
    // What the agent reported, unknown figures null; the `$END` edge's message on completion.
    expect(events[4]).toMatchObject({
      usage: { inputTokens: 7, outputTokens: null, costUsd: 0.5 },
    });
    expect(events[5]).toEqual({
      event: "thread.completed",
      ts: expect.any(String),
      thread,
      message: "Done.",
    });
    const pointer = await store.threads.get(thread);
    expect(pointer).toMatchObject({ status: "completed", steps: 2, currentRole: "reviewer" });
    expect(pointer.head).toBe(summary.steps[1]!.hash);
  });

  it("announces a question as a suspended event naming the role and the question", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    const events: UwfEvent[] = [];
    const agent = mockAgent([
      { role: "writer", output: { $status: "written", text: "x" } },
      { role: "reviewer", output: { $status: "asks", question: "Which tone?" } },
    ]);
    const lease = await takeThread(store, thread, "test");
    const summary = await runSteps(engineWith(events), thread, {
      count: 5,
      agentFlag: agent,
      lease,
    });
    await lease.release();
    expect(summary.stoppedBecause).toBe("suspended");
    expect(events.at(-1)).toEqual({
      event: "thread.suspended",
      ts: expect.any(String),
      thread,
      role: "reviewer",
      reason: "Which tone?",
      kind: "question",
    });
  });

  it("reports a failed agent as step.failed and leaves the head where it was", async () => {
    const { thread, start } = await seedThread(store, {
      workflow: relay,
      prompt: "Go",
      cwd: temp.home,
    });
    const events: UwfEvent[] = [];
    const agent = mockAgent([{ role: "writer", exit: 3, stderr: "model quota exhausted" }]);
    const lease = await takeThread(store, thread, "test");
    const summary = await runSteps(engineWith(events), thread, {
      count: 1,
      agentFlag: agent,
      lease,
    });
    await lease.release();
    expect(summary.stoppedBecause).toBe("failed");
    const failed = events.find((e) => e.event === "step.failed");
    expect(failed).toMatchObject({ thread, role: "writer" });
    expect(failed && "reason" in failed ? failed.reason : "").toContain("exited with code 3");
    const pointer = await store.threads.get(thread);
    expect(pointer.head).toBe(start);
    expect(pointer.status).toBe("suspended");
  });
});

describe("runSteps and the warm Node process", () => {
  const warmNodes = new WarmNodes();
  afterEach(() => warmNodes.end());

  it("starts the next step's Node only while another step can follow", async () => {
    // relay: the writer's step leads to the reviewer; the reviewer's only to $END or $SUSPEND.
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    const engine = engineWith([]);
    // Started with the adapters' environment, so that each step can run in one.
    warmNodes.start({ PATH: process.env.PATH, UWF_ADAPTER_WATCH_PARENT: "0" });
    const agent = mockAgent([
      { role: "writer", output: { $status: "written", text: "a line" } },
      { role: "reviewer", output: { $status: "approved" } },
    ]);
    const lease = await takeThread(store, thread, "test");
    const summary = await runSteps(engine, thread, { count: 5, agentFlag: agent, lease });
    await lease.release();

    expect(summary.stoppedBecause).toBe("completed");
    // The writer's step took the first and started the second, which the reviewer's took; the
    // reviewer's step, which ends the run, started none.
    expect(warmNodes.started).toHaveLength(2);
    expect(warmNodes.inSlot).toBeUndefined();
  });
});

describe("a result line checked while the adapter ends", () => {
  /** uwf-mock run by a wrapper that then exits 5, or prints one more line. */
  function wrappedMock(mode: "then-fail" | "then-more"): string {
    const wrapper = join(temp.home, "wrap.cjs");
    writeFileSync(
      wrapper,
      `const { spawnSync } = require("node:child_process");
const [mode, ...rest] = process.argv.slice(2);
const run = spawnSync(process.execPath, rest, { stdio: ["ignore", "pipe", "inherit"] });
process.stdout.write(run.stdout);
if (mode === "then-fail") process.exitCode = 5;
else console.log("one more line");
`,
    );
    const scenario = writeScenario(temp.home, [
      { role: "writer", output: { $status: "written", text: "a line" } },
    ]);
    return `${process.execPath} ${wrapper} ${mode} ${UWF_MOCK_BIN} --scenario ${scenario}`;
  }

  it.each([
    ["then-fail", "exited with code 5"],
    ["then-more", "last stdout line is not JSON"],
  ] as const)(
    "does not move the head to a valid step when the adapter %s",
    async (mode, reason) => {
      const { thread, start } = await seedThread(store, {
        workflow: relay,
        prompt: "Go",
        cwd: temp.home,
      });
      const events: UwfEvent[] = [];
      const lease = await takeThread(store, thread, "test");
      const summary = await runSteps(engineWith(events), thread, {
        count: 1,
        agentFlag: wrappedMock(mode),
        lease,
      });
      await lease.release();
      expect(summary.stoppedBecause).toBe("failed");
      const failed = events.find((e) => e.event === "step.failed");
      expect(failed && "reason" in failed ? failed.reason : "").toContain(reason);
      expect((await store.threads.get(thread)).head).toBe(start);
    },
  );
});

describe("pointer writes", () => {
  it("stores each step with one pointer write, the remembered agent and final status included", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    const agent = mockAgent([
      { role: "writer", output: { $status: "written", text: "x" } },
      { role: "reviewer", output: { $status: "approved" } },
    ]);
    const before = (await store.threads.get(thread)).rev!;
    const lease = await takeThread(store, thread, "test");
    const summary = await runSteps(engineWith([]), thread, { count: 2, agentFlag: agent, lease });
    await lease.release();
    expect(summary.stoppedBecause, summary.message).toBe("completed");
    // Each revision is one compare-and-swap: a crash never leaves a moved head unsettled.
    expect(await store.threads.get(thread)).toMatchObject({
      rev: before + 2,
      status: "completed",
      agent,
    });
  });

  it("remembers the agent of a step that failed, with the failure, in one write", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    const agent = mockAgent([{ role: "writer", exit: 3 }]);
    const before = (await store.threads.get(thread)).rev!;
    const lease = await takeThread(store, thread, "test");
    await runSteps(engineWith([]), thread, { count: 1, agentFlag: agent, lease });
    await lease.release();
    expect(await store.threads.get(thread)).toMatchObject({
      rev: before + 1,
      status: "suspended",
      agent,
    });
  });
});

describe("runSteps with a long edge prompt", () => {
  it("gets a 1 MiB edge prompt to the adapter through its stdin", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    // Multi-byte text, so a split character anywhere in the pipe would show.
    const text = `${"ü".repeat(512 * 1024)}`;
    const agent = mockAgent([
      { role: "writer", output: { $status: "written", text } },
      { role: "reviewer", output: { $status: "approved" } },
    ]);
    const lease = await takeThread(store, thread, "test");
    const summary = await runSteps(engineWith([]), thread, { count: 2, agentFlag: agent, lease });
    await lease.release();
    expect(summary.stoppedBecause, summary.message).toBe("completed");
    const review = await store.cas.getPayload<StepPayload>(summary.steps[1]!.hash, "step");
    expect(Buffer.byteLength(review.edgePrompt)).toBeGreaterThan(1024 * 1024);
    expect(review.edgePrompt).toBe(`Review: ${text}`);
  });
});

describe("the agent a thread remembers", () => {
  it("runs a later exec without --agent on the agent the last --agent chose", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    const agent = mockAgent([
      { role: "writer", output: { $status: "written", text: "x" } },
      { role: "reviewer", output: { $status: "approved" } },
    ]);
    const events: UwfEvent[] = [];
    let lease = await takeThread(store, thread, "test");
    await runSteps(engineWith(events), thread, { count: 1, agentFlag: agent, lease });
    await lease.release();
    expect((await store.threads.get(thread)).agent).toBe(agent);

    lease = await takeThread(store, thread, "test");
    const summary = await runSteps(engineWith(events), thread, { count: 1, lease });
    await lease.release();
    expect(summary.stoppedBecause, summary.message).toBe("completed");
    expect(summary.steps[0]).toMatchObject({ role: "reviewer", agent: "uwf-mock" });
  });

  it("is refused, the pointer corrupt, when it holds something else than a command line", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    const pointer = await store.threads.get(thread);
    await store.threads.swap({ ...pointer, agent: 42 as unknown as string }, pointer.rev ?? 0);
    const lease = await takeThread(store, thread, "test");
    await expect(runSteps(engineWith([]), thread, { count: 1, lease })).rejects.toMatchObject({
      code: "THREAD_CORRUPT",
      message: expect.stringContaining("`agent` is 42, not a string"),
    });
    await lease.release();
  });
});

describe("takeThread", () => {
  it("stops the agent a dead holder left running before it hands out the lease", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    // A holder that records an agent group, then dies without releasing: a killed exec.
    const agent = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], {
      stdio: "ignore",
    });
    const { lease: first } = await store.leases.acquire(thread, { command: "test" });
    await first.setChild({ pid: agent.pid!, pgid: agent.pid!, startTime: null });
    await first.transfer({ ...first.info().holder, pid: holder.pid!, startTime: null });
    holder.kill("SIGKILL");
    expect(await waitUntilGone(holder.pid!, 10_000)).toBe(true);

    const lease = await takeThread(store, thread, "test");
    expect(await waitUntilGone(agent.pid!, 10_000)).toBe(true);
    expect((await store.leases.read(thread))?.info.token).toBe(lease.token);
    await lease.release();
  });
});

describe("a run on a thread an earlier failure suspended", () => {
  it("runs nothing and stops as failed, with the reason and how to retry", async () => {
    const { thread, start } = await seedThread(store, {
      workflow: relay,
      prompt: "Go",
      cwd: temp.home,
    });
    const agent = mockAgent([{ role: "writer", exit: 3, stderr: "model quota exhausted" }]);
    let lease = await takeThread(store, thread, "test");
    await runSteps(engineWith([]), thread, { count: 1, agentFlag: agent, lease });
    await lease.release();

    const events: UwfEvent[] = [];
    lease = await takeThread(store, thread, "test");
    const again = await runSteps(engineWith(events), thread, { count: 1, agentFlag: agent, lease });
    await lease.release();
    expect(events).toEqual([]);
    expect(again).toMatchObject({ stoppedBecause: "failed", steps: [], failure: null });
    expect(again.message).toContain('thread is suspended: role "writer" failed: agent "uwf-mock"');
    expect(again.message).toContain("model quota exhausted");
    expect(again.message).toContain(`To retry the step: uwf thread resume ${thread}`);
    expect((await store.threads.get(thread)).head).toBe(start);
  });

  it("tells a failure (kind failure or retry) from a thread that waits for a human", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    const pointer = await store.threads.get(thread);
    const suspendedBy = (kind: "failure" | "retry" | "question" | "budget") =>
      terminalReason({
        ...pointer,
        status: "suspended",
        suspended: { role: "writer", reason: "why", kind, retryAfter: "2030-01-01T00:00:00.000Z" },
      })?.because;
    expect(suspendedBy("failure")).toBe("failed");
    expect(suspendedBy("retry")).toBe("failed");
    expect(suspendedBy("question")).toBe("suspended");
    expect(suspendedBy("budget")).toBe("suspended");
  });
});

describe("a run interrupted because the thread was cancelled", () => {
  it("says the thread was cancelled, with the pointer as the cancel left it", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    const agent = mockAgent([
      { role: "writer", delay_ms: 600_000, output: { $status: "written", text: "x" } },
    ]);
    const controller = new AbortController();
    // What `thread cancel` does to a running exec: mark the thread, then stop the exec.
    const cancel = async (): Promise<void> => {
      const now = await store.threads.get(thread);
      await store.threads.swap({ ...now, status: "cancelled" }, now.rev ?? 0);
      controller.abort("SIGTERM");
    };
    const events: UwfEvent[] = [];
    const engine = engineWith(events, controller.signal);
    engine.events.subscribe((event) => {
      if (event.event === "step.start") void cancel();
    });
    const lease = await takeThread(store, thread, "test");
    const summary = await runSteps(engine, thread, { count: 1, agentFlag: agent, lease });
    await lease.release();
    expect(summary.stoppedBecause).toBe("stopped");
    expect(summary.pointer.status).toBe("cancelled");
    expect(summary.message).toMatch(
      /^thread was cancelled while role "writer" ran; the head did not move\. It has no step to fork; to do its work, start a new thread of the same workflow: uwf thread start [0-9A-Z]{13} -p "<task>" --cwd /,
    );
    // The agent it was run with is not remembered over the cancel.
    expect(await store.threads.get(thread)).toMatchObject({ status: "cancelled" });
    expect((await store.threads.get(thread)).agent).toBeUndefined();
  });
});
