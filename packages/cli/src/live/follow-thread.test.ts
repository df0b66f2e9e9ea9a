import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempHome } from "@united-workforce/test-utils";
import { describe, expect, it } from "vitest";
import type { LogEvent } from "./follow-log.js";
import { currentSteps, familyOf, followThread } from "./follow-thread.js";
import { progressFromLog } from "./from-events.js";
import { type ProgressEvent, ProgressView } from "./progress.js";

const THREAD = "01M85RF4Z61GPTZ5WHXXZZW617";
const log = (event: string, fields: Record<string, unknown>): LogEvent => ({
  ts: "2026-11-24T03:09:24.000Z",
  level: "info",
  event,
  thread: THREAD,
  ...fields,
});

describe("progressFromLog of a fan-out", () => {
  it("reads the fan-out's start, a child that stopped, and the join", () => {
    const at = Date.parse("2026-11-24T03:09:24.000Z");
    expect(
      progressFromLog(
        log("fanout.started", { role: "collect", children: 20, concurrency: 4, failure: "all" }),
      ),
    ).toEqual({
      type: "fanout.started",
      thread: THREAD,
      role: "collect",
      children: 20,
      concurrency: 4,
      atMs: at,
    });
    expect(
      progressFromLog(
        log("fanout.child", { child: "01M86337P7QDTBZZRNPEPR6Z8B", index: 2, status: "failed" }),
      ),
    ).toEqual({
      type: "fanout.child",
      thread: THREAD,
      child: "01M86337P7QDTBZZRNPEPR6Z8B",
      index: 2,
      status: "failed",
      atMs: at,
    });
    expect(
      progressFromLog(
        log("fanout.joined", { role: "collect", stepNumber: 2, completed: 19, failed: 1 }),
      ),
    ).toMatchObject({ type: "fanout.joined", stepNumber: 2, completed: 19, failed: 1 });
    // A line an older uwf wrote has no step number; the join is still shown.
    expect(
      progressFromLog(log("fanout.joined", { role: "collect", completed: 19, failed: 1 })),
    ).not.toHaveProperty("stepNumber");
    // A line missing what progress needs is skipped, never trusted.
    expect(progressFromLog(log("fanout.joined", { role: "collect", completed: "x" }))).toBeNull();
  });
});

describe("progressFromLog", () => {
  it("reads what exec logs into what progress shows, keeping the time it happened", () => {
    expect(
      progressFromLog(log("step.start", { role: "greeter", agent: "uwf-mock", stepNumber: 1 })),
    ).toEqual({
      type: "step.started",
      thread: THREAD,
      role: "greeter",
      agent: "uwf-mock",
      stepNumber: 1,
      atMs: Date.parse("2026-11-24T03:09:24.000Z"),
    });
    expect(
      progressFromLog(
        log("step.done", { role: "greeter", step: "FTD0EF5FT35BD", status: "done", durationMs: 5 }),
      ),
    ).toMatchObject({ type: "step.finished", hash: "FTD0EF5FT35BD", usage: null });
    expect(progressFromLog(log("thread.completed", { message: "Bye" }))).toMatchObject({
      type: "completed",
      message: "Bye",
    });
    // A transient failure a background exec retries shows in `thread watch` too.
    expect(
      progressFromLog(
        log("step.retry", {
          role: "greeter",
          retry: 2,
          maxRetries: 3,
          delayMs: 20_000,
          reason: "rate limited",
        }),
      ),
    ).toMatchObject({ type: "step.retrying", retry: 2, maxRetries: 3, delayMs: 20_000 });
    expect(progressFromLog(log("step.retry", { role: "greeter", retry: 2 }))).toBeNull();
    // So does a background exec --wait waiting for the retry time.
    expect(
      progressFromLog(
        log("exec.wait", { role: "greeter", retryAfter: "2026-11-24T04:00:00.000Z" }),
      ),
    ).toMatchObject({ type: "waiting", role: "greeter", until: "2026-11-24T04:00:00.000Z" });
    expect(progressFromLog(log("exec.wait", { role: "greeter" }))).toBeNull();
  });

  it("skips other events and lines that lack what progress needs", () => {
    expect(progressFromLog(log("thread.start", {}))).toBeNull();
    expect(progressFromLog(log("step.start", { role: "greeter", stepNumber: "1" }))).toBeNull();
    expect(
      progressFromLog(log("thread.suspended", { role: "r", reason: "x", kind: "?" })),
    ).toBeNull();
    expect(
      progressFromLog({ ...log("step.failed", { role: "r", reason: "x" }), ts: "later" }),
    ).toBeNull();
  });
});

describe("currentSteps", () => {
  const started = (n: number): ProgressEvent => ({
    type: "step.started",
    thread: THREAD,
    role: "greeter",
    agent: "uwf-mock",
    stepNumber: n,
    atMs: n,
  });
  const output = (line: string): ProgressEvent => ({
    type: "adapter.output",
    thread: THREAD,
    role: "greeter",
    line,
    atMs: 0,
  });
  const finished: ProgressEvent = {
    type: "step.finished",
    thread: THREAD,
    role: "greeter",
    status: "done",
    hash: "FTD0EF5FT35BD",
    durationMs: 1,
    usage: null,
    atMs: 0,
  };

  it("is the last step that started and has not ended, with the agent's latest line", () => {
    expect(
      currentSteps([started(1), output("a"), finished, started(2), output("b"), output("c")]),
    ).toEqual([started(2), output("c")]);
    expect(currentSteps([started(1)])).toEqual([started(1)]);
  });

  it("is nothing between steps or before any", () => {
    expect(currentSteps([started(1), output("a"), finished])).toEqual([]);
    expect(currentSteps([])).toEqual([]);
  });

  it("is every thread's step under way, in the order they started: a fan-out's children", () => {
    const child = (n: number): string => `01M86KF5RZ6TEH72KAAXXXKPG${n}`;
    const of = (thread: string, event: ProgressEvent): ProgressEvent => ({ ...event, thread });
    expect(
      currentSteps([
        started(1),
        of(child(1), started(1)),
        of(child(2), started(1)),
        of(child(1), output("one")),
        of(child(3), started(1)),
        of(child(2), finished),
        of(child(3), output("three")),
      ]),
    ).toEqual([
      started(1),
      of(child(1), started(1)),
      of(child(1), output("one")),
      of(child(3), started(1)),
      of(child(3), output("three")),
    ]);
  });

  it("is an exec's wait for a retry time, until the step it waits for starts", () => {
    const waiting: ProgressEvent = {
      type: "waiting",
      thread: THREAD,
      role: "greeter",
      until: "2026-11-24T04:00:00.000Z",
      atMs: 0,
    };
    expect(currentSteps([started(1), output("429"), waiting])).toEqual([waiting]);
    expect(currentSteps([waiting, started(2)])).toEqual([started(2)]);
  });
});

describe("familyOf", () => {
  it("takes a thread's lines and its fan-outs' at any depth, and nothing else", () => {
    const [child, grandchild, other, othersChild] = [
      "01M86KF5RZ6TEH72KAAXXXKPG1",
      "01M86KF5RZ6TEH72KAAXXXKPG2",
      "01M86KF5RZ6TEH72KAAXXXKPG3",
      "01M86KF5RZ6TEH72KAAXXXKPG4",
    ];
    const inFamily = familyOf(THREAD);
    const lines = [
      log("fanout.started", { role: "collect" }),
      log("thread.start", { thread: child, parent: THREAD }),
      log("step.start", { thread: child, parent: THREAD, role: "gather" }),
      log("thread.start", { thread: grandchild, parent: child }),
      log("step.start", { thread: grandchild, parent: child, role: "leaf" }),
      log("step.start", { thread: other, role: "plan" }),
      log("step.start", { thread: othersChild, parent: other, role: "leaf" }),
      log("command.start", { thread: undefined }),
      log("step.done", { thread: grandchild, parent: child, role: "leaf" }),
    ];
    expect(lines.filter(inFamily).map((line) => `${line.event} ${line.thread}`)).toEqual([
      `fanout.started ${THREAD}`,
      `thread.start ${child}`,
      `step.start ${child}`,
      `thread.start ${grandchild}`,
      `step.start ${grandchild}`,
      `step.done ${grandchild}`,
    ]);
    // Watching the middle thread takes its own child, not its parent or its sibling's.
    const inMiddle = familyOf(child);
    expect(lines.filter(inMiddle).map((line) => line.thread)).toEqual([
      child,
      child,
      grandchild,
      grandchild,
      grandchild,
    ]);
  });
});

describe("followThread", () => {
  /** What the watch announces as under way in a home whose log began before midnight. */
  async function announced(since: string | undefined): Promise<ProgressEvent | null> {
    const temp = tempHome();
    try {
      const logs = join(temp.home, "logs");
      mkdirSync(logs);
      const start = { ...log("step.start", { role: "greeter", agent: "uwf-mock", stepNumber: 3 }) };
      start.ts = "2026-11-23T23:59:00.000Z";
      writeFileSync(join(logs, "2026-11-23.jsonl"), `${JSON.stringify(start)}\n`);
      writeFileSync(
        join(logs, "2026-11-24.jsonl"),
        `${JSON.stringify(log("command.start", {}))}\n`,
      );
      let end = (_: boolean): void => {};
      const ended = new Promise<boolean>((resolve) => {
        end = resolve;
      });
      let current: ProgressEvent | null = null;
      await followThread({
        home: temp.home,
        thread: THREAD,
        progress: new ProgressView({
          mode: "lines",
          color: false,
          write: () => {},
          columns: () => 80,
        }),
        ended,
        signal: new AbortController().signal,
        announce: (now) => {
          current = now;
          end(true);
        },
        ...(since === undefined ? {} : { since }),
      });
      return current;
    } finally {
      temp.cleanup();
    }
  }

  it("finds a step that began before midnight from the day its run began", async () => {
    expect(await announced("2026-11-23T23:58:30.000Z")).toMatchObject({
      type: "step.started",
      role: "greeter",
      stepNumber: 3,
    });
    // Today's file alone says nothing is under way.
    expect(await announced(undefined)).toBeNull();
  });
});
