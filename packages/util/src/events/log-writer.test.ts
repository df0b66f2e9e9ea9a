import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { logFilePath } from "./log-files.js";
import { eventLogWriter } from "./log-writer.js";
import { createEventStream } from "./stream.js";

// Every temp folder a test makes is removed after it.
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "uwf-log-"));
  made.push(dir);
  return dir;
}
const THREAD = "01KB7ZQ0000000000000000000";

function readLines(home: string): Record<string, unknown>[] {
  return readFileSync(logFilePath(home), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

describe("eventLogWriter", () => {
  it("appends one JSON line per event to the day's file, with the event's level", () => {
    const home = tempDir();
    const events = createEventStream(eventLogWriter(home, { command: "thread exec" }));
    events.emit("step.start", {
      thread: THREAD,
      role: "planner",
      agent: "a",
      stepNumber: 1,
      cwd: "/",
    });
    events.emit("step.failed", { thread: THREAD, role: "planner", reason: "boom" });
    const lines = readLines(home);
    expect(lines).toHaveLength(2);
    expect(Object.keys(lines[0]!).slice(0, 5)).toEqual(["ts", "level", "event", "pid", "command"]);
    expect(lines[0]).toMatchObject({
      level: "info",
      event: "step.start",
      pid: process.pid,
      command: "thread exec",
      thread: THREAD,
      role: "planner",
    });
    expect(lines[1]).toMatchObject({ level: "error", event: "step.failed", reason: "boom" });
    expect(Date.parse(String(lines[0]!.ts))).not.toBeNaN();
  });

  it("keeps the log for its owner only: the folder 0700, the files 0600", () => {
    const home = join(tempDir(), "new-home");
    createEventStream(eventLogWriter(home)).emit("config.set", { key: "defaultAgent" });
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, "logs")).mode & 0o777).toBe(0o700);
    expect(statSync(logFilePath(home)).mode & 0o777).toBe(0o600);
  });

  it("never throws, even when the log directory cannot be created", () => {
    const home = tempDir();
    writeFileSync(join(home, "logs"), "a file where the directory should be");
    chmodSync(join(home, "logs"), 0o400);
    const write = eventLogWriter(home);
    expect(() =>
      write({ event: "config.set", ts: new Date().toISOString(), key: 1n as unknown as string }),
    ).not.toThrow();
  });

  it("lets an event's own field win over the envelope's", () => {
    const home = tempDir();
    createEventStream(eventLogWriter(home, { command: "thread exec" })).emit("command.crashed", {
      command: "thread show",
      message: "boom",
    });
    expect(readLines(home)[0]).toMatchObject({ event: "command.crashed", command: "thread show" });
  });
});
