import { closeSync, mkdtempSync, openSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeToFd } from "./write-fd.js";

describe("writeToFd", () => {
  it("writes all of a long text, multi-byte characters included", () => {
    const file = join(mkdtempSync(join(tmpdir(), "uwf-fd-")), "out.txt");
    const fd = openSync(file, "w");
    const text = `${"é→ 0123456789\n".repeat(20_000)}end`;
    expect(writeToFd(fd, text)).toBe(true);
    closeSync(fd);
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  it("says false, without throwing, when the descriptor cannot take it", () => {
    const fd = openSync(join(mkdtempSync(join(tmpdir(), "uwf-fd-")), "x"), "w");
    closeSync(fd);
    expect(writeToFd(fd, "lost")).toBe(false);
  });
});
