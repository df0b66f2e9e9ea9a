import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type TempHome, tempHome } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lastWorkerOutcome, workerError } from "./last-run.js";

const THREAD = "01JD0000000000000000000000";
const OTHER = "01JD0000000000000000000001";

let temp: TempHome;
beforeEach(() => {
  temp = tempHome();
  mkdirSync(join(temp.home, "logs"));
});
afterEach(() => temp.cleanup());

/** A day's log file; a string is written as it is (a torn line). */
function writeLog(day: string, events: (Record<string, unknown> | string)[]): void {
  const lines = events.map((event) =>
    typeof event === "string" ? `${event}\n` : `${JSON.stringify({ level: "info", ...event })}\n`,
  );
  writeFileSync(join(temp.home, "logs", `${day}.jsonl`), lines.join(""));
}

const ended = (ts: string, pid: number, exitCode: number, thread = THREAD) => ({
  ts,
  event: "exec.end",
  pid,
  thread,
  status: "idle",
  stoppedBecause: exitCode === 130 ? "stopped" : "count",
  steps: 0,
  message: `run by ${pid}`,
  exitCode,
});

describe("lastWorkerOutcome", () => {
  it("finds the last outcome of the thread logged since it last changed, across days", () => {
    writeLog("2026-03-01", [ended("2026-03-01T23:59:00.000Z", 10, 0)]);
    writeLog("2026-03-02", [
      ended("2026-03-02T00:00:01.000Z", 11, 130),
      ended("2026-03-02T00:00:02.000Z", 12, 0, OTHER),
      { ts: "2026-03-02T00:00:03.000Z", event: "step.start", pid: 13, thread: THREAD },
      `{"ts":"2026-03-02T00:00:04.000Z","event":"exec.end","thread":"${THREAD}","exitC`,
    ]);
    expect(lastWorkerOutcome(temp.home, THREAD, "2026-03-01T12:00:00.000Z")).toMatchObject({
      kind: "ended",
      pid: 11,
      exitCode: 130,
      stoppedBecause: "stopped",
      message: "run by 11",
    });
  });

  it("ignores outcomes older than the thread's last change", () => {
    writeLog("2026-03-02", [ended("2026-03-02T10:00:00.000Z", 11, 130)]);
    expect(lastWorkerOutcome(temp.home, THREAD, "2026-03-02T10:00:00.001Z")).toBeNull();
    expect(lastWorkerOutcome(temp.home, OTHER, "2026-03-01T00:00:00.000Z")).toBeNull();
  });

  it("turns a logged error back into the error, code and hint included", () => {
    writeLog("2026-03-02", [
      {
        ts: "2026-03-02T10:00:00.000Z",
        event: "exec.error",
        pid: 42,
        thread: THREAD,
        code: "AGENT_UNKNOWN",
        message: 'no agent is configured for role "reviewer"',
        hint: "Pass --agent.",
        exitCode: 2,
      },
    ]);
    const outcome = lastWorkerOutcome(temp.home, THREAD, "2026-03-02T00:00:00.000Z");
    expect(outcome).toMatchObject({ kind: "error", pid: 42, code: "AGENT_UNKNOWN", exitCode: 2 });
    if (outcome?.kind !== "error") throw new Error("no error outcome");
    expect(workerError(THREAD, outcome)).toMatchObject({
      code: "AGENT_UNKNOWN",
      message: `the background exec of thread ${THREAD} (pid 42) failed: no agent is configured for role "reviewer"`,
      hint: "Pass --agent.",
    });
  });
});
