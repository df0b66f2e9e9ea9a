import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ThreadEvent, UwfEvent } from "@united-workforce/protocol";
import { tempHome } from "@united-workforce/test-utils";
import { describe, expect, it } from "vitest";
import { currentSteps, familyOf, followThread } from "./follow-thread.js";
import { ProgressView } from "./progress.js";

const THREAD = "01M85RF4Z61GPTZ5WHXXZZW617";
/** An event as its log line holds it (the envelope's `level` and `pid` included). */
const log = (event: string, fields: Record<string, unknown>): UwfEvent =>
  ({
    ts: "2026-11-24T03:09:24.000Z",
    level: "info",
    event,
    pid: 1,
    thread: THREAD,
    ...fields,
  }) as unknown as UwfEvent;

describe("currentSteps", () => {
  const at = (ms: number): string => new Date(ms).toISOString();
  const started = (n: number): ThreadEvent => ({
    event: "step.start",
    ts: at(n),
    thread: THREAD,
    role: "greeter",
    agent: "uwf-mock",
    stepNumber: n,
    cwd: "/work",
  });
  const output = (line: string): ThreadEvent => ({
    event: "adapter.output",
    ts: at(0),
    thread: THREAD,
    role: "greeter",
    line,
  });
  const finished: ThreadEvent = {
    event: "step.done",
    ts: at(0),
    thread: THREAD,
    role: "greeter",
    status: "done",
    step: "FTD0EF5FT35BD",
    durationMs: 1,
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
    const of = (thread: string, event: ThreadEvent): ThreadEvent => ({ ...event, thread });
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
    const waiting: ThreadEvent = {
      event: "exec.wait",
      ts: at(0),
      thread: THREAD,
      role: "greeter",
      retryAfter: "2026-11-24T04:00:00.000Z",
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
      log("config.set", { thread: undefined, key: "store" }),
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
  async function announced(since: string | undefined): Promise<ThreadEvent | null> {
    const temp = tempHome();
    try {
      const logs = join(temp.home, "logs");
      mkdirSync(logs);
      const start = {
        ...log("step.start", { role: "greeter", agent: "uwf-mock", stepNumber: 3, cwd: "/w" }),
        ts: "2026-11-23T23:59:00.000Z",
      };
      writeFileSync(join(logs, "2026-11-23.jsonl"), `${JSON.stringify(start)}\n`);
      writeFileSync(
        join(logs, "2026-11-24.jsonl"),
        `${JSON.stringify(log("config.set", { thread: undefined, key: "store" }))}\n`,
      );
      let end = (_: boolean): void => {};
      const ended = new Promise<boolean>((resolve) => {
        end = resolve;
      });
      let current: ThreadEvent | null = null;
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
      event: "step.start",
      role: "greeter",
      stepNumber: 3,
    });
    // Today's file alone says nothing is under way.
    expect(await announced(undefined)).toBeNull();
  });
});
