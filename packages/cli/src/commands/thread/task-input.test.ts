import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readTask } from "./task-input.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "uwf-task-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The error a call throws, as code, message and hint. */
function failure(call: () => unknown): { code: string; message: string; hint: string } {
  try {
    call();
  } catch (error) {
    return error as { code: string; message: string; hint: string };
  }
  throw new Error("expected an error");
}

describe("readTask", () => {
  it("takes -p text as it is", () => {
    expect(readTask(dir, { prompt: "Fix #12" })).toBe("Fix #12");
  });

  it("reads -p - from stdin", () => {
    expect(readTask(dir, { prompt: "-" }, () => "from a pipe\n")).toBe("from a pipe\n");
  });

  it("reads --prompt-file relative to the caller's directory", () => {
    writeFileSync(join(dir, "issue.md"), "# Issue\nIt breaks.\n");
    expect(readTask(dir, { promptFile: "issue.md" })).toBe("# Issue\nIt breaks.\n");
  });

  it("refuses both, neither, an empty task and an unreadable file as usage errors with a hint", () => {
    const both = failure(() => readTask(dir, { prompt: "x", promptFile: "f" }));
    expect(both).toMatchObject({
      code: "USAGE",
      message: "-p/--prompt and --prompt-file were both given",
    });
    expect(both.hint).toContain("-p -");
    expect(failure(() => readTask(dir, {}))).toMatchObject({
      code: "USAGE",
      message: "--prompt is required (or give --prompt-file)",
    });
    expect(failure(() => readTask(dir, { prompt: "-" }, () => " \n"))).toMatchObject({
      code: "USAGE",
      message: "the task from stdin (-p -) is empty",
    });
    writeFileSync(join(dir, "empty.md"), "");
    expect(failure(() => readTask(dir, { promptFile: "empty.md" })).message).toBe(
      "the task from --prompt-file empty.md is empty",
    );
    const missing = failure(() => readTask(dir, { promptFile: "nope.md" }));
    expect(missing.code).toBe("USAGE");
    expect(missing.message).toMatch(/^cannot read the task from --prompt-file nope\.md: .*ENOENT/);
    expect(missing.hint).toContain("Pass a readable file");
    const locked = join(dir, "locked.md");
    writeFileSync(locked, "secret");
    chmodSync(locked, 0o000);
    if (process.getuid?.() !== 0) {
      expect(failure(() => readTask(dir, { promptFile: locked })).message).toMatch(/EACCES/);
    }
  });
});
