import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger, logFilePath } from "./logger.js";

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

describe("createLogger", () => {
  it("appends one JSON event per line to the day's file", () => {
    const home = tempDir();
    const logger = createLogger(home, { thread: "T1" });
    logger.info("step.start", { role: "planner" });
    logger.error("step.failed", { reason: "boom" });
    const lines = readFileSync(logFilePath(home), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      level: "info",
      event: "step.start",
      thread: "T1",
      role: "planner",
    });
    expect(lines[1]).toMatchObject({ level: "error", event: "step.failed", reason: "boom" });
    expect(Date.parse(lines[0].ts)).not.toBeNaN();
  });

  it("keeps the log for its owner only: the folder 0700, the files 0600", () => {
    const home = join(mkdtempSync(join(tmpdir(), "uwf-log-")), "new-home");
    createLogger(home).info("step.start", { prompt: "private" });
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, "logs")).mode & 0o777).toBe(0o700);
    expect(statSync(logFilePath(home)).mode & 0o777).toBe(0o600);
  });

  it("never throws, even when the log directory cannot be created", () => {
    const home = tempDir();
    writeFileSync(join(home, "logs"), "a file where the directory should be");
    chmodSync(join(home, "logs"), 0o400);
    const logger = createLogger(home);
    expect(() => logger.info("anything", { big: 1n as unknown as number })).not.toThrow();
  });
});

describe("createLogger reserved keys", () => {
  it("keeps the writer's pid, level and event even when fields reuse those names", () => {
    const home = tempDir();
    createLogger(home, { event: "base" }).info("real.event", { pid: 1, level: "fake" });
    const line = JSON.parse(readFileSync(logFilePath(home), "utf8"));
    expect(line).toMatchObject({ event: "real.event", level: "info", pid: process.pid });
  });
});
