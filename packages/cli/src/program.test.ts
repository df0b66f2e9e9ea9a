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
