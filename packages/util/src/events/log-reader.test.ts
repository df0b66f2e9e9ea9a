import { describe, expect, it } from "vitest";
import { eventOf, type LogRecord, parseLogLine } from "./log-reader.js";

const THREAD = "01M85RF4Z61GPTZ5WHXXZZW617";
/** A log line's record: the envelope, then the event's fields. */
const line = (event: string, fields: Record<string, unknown>): LogRecord => ({
  ts: "2026-11-24T03:09:24.000Z",
  level: "info",
  event,
  pid: 1,
  command: "thread exec",
  thread: THREAD,
  ...fields,
});

describe("parseLogLine", () => {
  it("reads a JSON object with a time and a name, and nothing else", () => {
    expect(parseLogLine(JSON.stringify(line("config.set", { key: "store" })))).toMatchObject({
      event: "config.set",
    });
    expect(parseLogLine('{"ts":"2026-11-24T03:09:24.000Z","event":"x"')).toBeNull();
    expect(parseLogLine("   ")).toBeNull();
    expect(parseLogLine("[1,2]")).toBeNull();
    expect(parseLogLine('{"event":"config.set"}')).toBeNull();
  });
});

describe("eventOf", () => {
  it("takes an event that fits its schema, envelope and all", () => {
    const start = line("step.start", {
      role: "greeter",
      agent: "uwf-mock",
      stepNumber: 1,
      cwd: "/w",
    });
    expect(eventOf(start)).toBe(start);
    const fanout = line("fanout.started", {
      role: "collect",
      children: 20,
      concurrency: 4,
      failure: "all",
    });
    expect(eventOf(fanout)).toMatchObject({ event: "fanout.started", children: 20 });
  });

  it("reads lines an earlier uwf wrote, without the fields added since", () => {
    // No usage (uwf before 0.1), no agent or step number (before the one event stream).
    const done = line("step.done", {
      role: "greeter",
      step: "FTD0EF5FT35BD",
      status: "done",
      durationMs: 5,
    });
    expect(eventOf(done)).toMatchObject({ event: "step.done", step: "FTD0EF5FT35BD" });
    // A join without its step or step number.
    expect(
      eventOf(line("fanout.joined", { role: "collect", completed: 19, failed: 1 })),
    ).not.toBeNull();
  });

  it("refuses a line whose fields do not fit, and an event this uwf does not know", () => {
    expect(
      eventOf(line("fanout.joined", { role: "collect", completed: "x", failed: 0 })),
    ).toBeNull();
    expect(eventOf(line("step.retry", { role: "greeter", retry: 2 }))).toBeNull();
    expect(
      eventOf(line("step.start", { role: "greeter", stepNumber: "1", agent: "a", cwd: "/" })),
    ).toBeNull();
    expect(eventOf(line("thread.suspended", { role: "r", reason: "x", kind: "?" }))).toBeNull();
    expect(eventOf({ ...line("step.failed", { role: "r", reason: "x" }), ts: "later" })).toBeNull();
    expect(
      eventOf(line("step.failed", { role: "r", reason: "x", thread: "not-an-id" })),
    ).toBeNull();
    expect(eventOf(line("run.queued", {}))).toBeNull();
  });
});
