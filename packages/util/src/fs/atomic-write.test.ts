import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeFileAtomic } from "./atomic-write.js";

// Every temp folder a test makes is removed after it.
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "uwf-atomic-"));
  made.push(dir);
  return dir;
}

describe("writeFileAtomic", () => {
  it("replaces the file and leaves no temp file behind", () => {
    const dir = tempDir();
    const path = join(dir, "pointer.json");
    writeFileAtomic(path, "one");
    writeFileAtomic(path, "two");
    expect(readFileSync(path, "utf8")).toBe("two");
    expect(readdirSync(dir)).toEqual(["pointer.json"]);
  });

  it("applies the requested mode", () => {
    const dir = tempDir();
    const path = join(dir, "config.yaml");
    writeFileAtomic(path, "secret: x", { mode: 0o600 });
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("fails without touching the target when the directory is missing", () => {
    const dir = tempDir();
    expect(() => writeFileAtomic(join(dir, "missing", "f"), "x")).toThrow(/ENOENT/);
  });
});
