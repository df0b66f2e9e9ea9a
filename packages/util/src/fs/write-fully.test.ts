import { closeSync, mkdtempSync, openSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isUwfError } from "../errors.js";
import { fullDiskAfter, stingyWrite } from "./__fixtures__/fake-disk.js";
import { writeFully } from "./write-fully.js";

const tempFile = () => join(mkdtempSync(join(tmpdir(), "uwf-write-")), "pointer.json");

describe("writeFully", () => {
  it("keeps writing until every byte is written when the kernel takes less per call", () => {
    const path = tempFile();
    const bytes = Buffer.from("x".repeat(4500));
    const fd = openSync(path, "w");
    writeFully(fd, bytes, path, stingyWrite(4096));
    closeSync(fd);
    expect(readFileSync(path).length).toBe(4500);
  });

  it("fails naming the file when the disk stops taking bytes", () => {
    const path = tempFile();
    const fd = openSync(path, "w");
    try {
      expect(() => writeFully(fd, Buffer.alloc(4500), path, stingyWrite(4096, 4096))).toThrow(
        `${path}: the write stopped after 4096 of 4500 bytes`,
      );
    } finally {
      closeSync(fd);
    }
  });

  it("turns ENOSPC after a short write into an IO error naming the file", () => {
    const path = tempFile();
    const fd = openSync(path, "w");
    try {
      writeFully(fd, Buffer.alloc(4500), path, fullDiskAfter(4096));
      expect.unreachable();
    } catch (error) {
      expect(isUwfError(error) && error.code).toBe("IO");
      expect((error as Error).message).toBe(`${path}: no space left on the device (ENOSPC)`);
    } finally {
      closeSync(fd);
    }
  });
});
