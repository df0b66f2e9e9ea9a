import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { logFilePath } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CliIo } from "./cli-io.js";
import { runCli } from "./program.js";

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "uwf-program-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

/** An io whose stdout breaks as no real stream would: an error uwf cannot have expected. */
function brokenIo(stderr: string[]): CliIo {
  return {
    stdout: () => {
      throw new TypeError("write is not a function");
    },
    stderr: (text) => stderr.push(text),
    env: { UWF_HOME: home },
    cwd: home,
    signal: new AbortController().signal,
    interruptible: (work) => work(),
    self: [],
  };
}

describe("runCli", () => {
  it("logs an unexpected error with its stack, and the hint names that log", async () => {
    const stderr: string[] = [];
    const code = await runCli(["prompt", "bootstrap"], brokenIo(stderr));
    expect(code).toBe(1);
    const file = logFilePath(home);
    expect(stderr.join("")).toContain(
      `This is a bug in uwf. Please report it with the command you ran and the log ${file}.`,
    );
    const [line] = readFileSync(file, "utf8").trimEnd().split("\n");
    const record = JSON.parse(line!);
    expect(record).toMatchObject({
      level: "error",
      event: "command.crashed",
      command: "prompt bootstrap",
      message: "write is not a function",
    });
    expect(record.stack).toContain("TypeError: write is not a function");
  });
});

describe("help", () => {
  function helpAt(columns: number | undefined): Promise<string> {
    const stdout: string[] = [];
    const io: CliIo = {
      stdout: (text) => stdout.push(text),
      stderr: () => {},
      env: { UWF_HOME: home },
      cwd: home,
      signal: new AbortController().signal,
      interruptible: (work) => work(),
      self: [],
      columns: () => columns,
    };
    return runCli(["thread", "exec", "--help"], io).then(() => stdout.join(""));
  }

  it("wraps options and prose to the terminal's width; examples stay whole", async () => {
    const lines = (await helpAt(60)).trimEnd().split("\n");
    const examples = lines.indexOf("Examples:");
    expect(examples).toBeGreaterThan(0);
    for (const line of lines.slice(0, examples)) expect(line.length).toBeLessThanOrEqual(60);
    expect(lines.slice(examples + 1).every((line) => line.startsWith("  $ uwf "))).toBe(true);
  });

  it("wraps at 80 columns where there is no terminal", async () => {
    const lines = (await helpAt(undefined)).split("\n");
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(80);
  });
});
