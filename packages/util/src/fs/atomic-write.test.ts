import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fullDiskAfter, stingyWrite } from "./__fixtures__/fake-disk.js";
import { writeFileAtomic, writeFileAtomicWith } from "./atomic-write.js";

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

  it("writes files for their owner only unless told otherwise", () => {
    const dir = tempDir();
    writeFileAtomic(join(dir, "pointer.json"), "{}");
    expect(statSync(join(dir, "pointer.json")).mode & 0o777).toBe(0o600);
    writeFileAtomic(join(dir, "config.yaml"), "secret: x", { mode: 0o640 });
    expect(statSync(join(dir, "config.yaml")).mode & 0o777).toBe(0o640 & ~process.umask());
  });

  it("fails naming the file, as an IO error, when the directory is missing", () => {
    const path = join(tempDir(), "missing", "f");
    expect(() => writeFileAtomic(path, "x")).toThrow(
      expect.objectContaining({
        code: "IO",
        message: `${path}: no such file or directory (ENOENT)`,
      }) as Error,
    );
  });

  it("writes a whole pointer when the kernel takes 4096 bytes per call", () => {
    const dir = tempDir();
    const path = join(dir, "pointer.json");
    const text = `${"x".repeat(4500)}\n`;
    writeFileAtomicWith(stingyWrite(4096), path, text);
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("reports a full disk naming the file, and keeps the old content and no temp file", () => {
    const dir = tempDir();
    const path = join(dir, "pointer.json");
    writeFileAtomic(path, "old");
    try {
      writeFileAtomicWith(fullDiskAfter(4096), path, "x".repeat(4500));
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({
        code: "IO",
        message: `${path}: no space left on the device (ENOSPC)`,
        hint: expect.stringContaining("Free some disk space"),
      });
    }
    expect(readFileSync(path, "utf8")).toBe("old");
    expect(readdirSync(dir)).toEqual(["pointer.json"]);
  });

  it("writes a file given in parts, and keeps the old one when a part does not fit", () => {
    const dir = tempDir();
    const path = join(dir, "cache.jsonl");
    function* parts() {
      for (let i = 0; i < 3; i++) yield `line ${i}\n`;
    }
    writeFileAtomic(path, parts());
    expect(readFileSync(path, "utf8")).toBe("line 0\nline 1\nline 2\n");
    expect(() => writeFileAtomicWith(fullDiskAfter(10), path, parts())).toThrow(/ENOSPC/);
    expect(readFileSync(path, "utf8")).toBe("line 0\nline 1\nline 2\n");
    expect(readdirSync(dir)).toEqual(["cache.jsonl"]);
  });

  it.skipIf(process.getuid?.() === 0)(
    "reports a folder it may not write to as an IO error naming the file",
    () => {
      const dir = tempDir();
      chmodSync(dir, 0o500);
      try {
        expect(() => writeFileAtomic(join(dir, "f"), "x")).toThrow(
          `${join(dir, "f")}: permission denied (EACCES)`,
        );
      } finally {
        chmodSync(dir, 0o700);
      }
    },
  );
});
