import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readInput } from "./read-input.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "uwf-read-input-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("readInput", () => {
  it("reads a file given relative to the caller's directory", async () => {
    writeFileSync(join(dir, "node.json"), '{"a":1}');
    expect(await readInput(dir, "node.json")).toBe('{"a":1}');
  });

  it("stops at its limit instead of reading an endless input", async () => {
    // /dev/zero never ends: the read must stop at the limit, with a usage error.
    await expect(readInput(dir, "/dev/zero", 1024 * 1024)).rejects.toMatchObject({
      code: "USAGE",
      message: "/dev/zero is over 1 MiB, more than a node may hold",
    });
  });

  it("says which file it cannot read", async () => {
    await expect(readInput(dir, "missing.json")).rejects.toMatchObject({
      code: "IO",
      message: expect.stringContaining("cannot read missing.json"),
    });
  });
});
