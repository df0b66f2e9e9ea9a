import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";

let counter = 0;

/**
 * Write a file so that readers see either the old content or the new, never a part: write a
 * temp file in the same directory, then rename it over the target.
 */
export function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: { mode?: number; fsync?: boolean } = {},
): void {
  const tmp = join(dirname(path), `.tmp-${process.pid}-${Date.now()}-${counter++}`);
  const fd = openSync(tmp, "wx", options.mode ?? 0o644);
  try {
    writeSync(fd, typeof data === "string" ? Buffer.from(data, "utf8") : data);
    if (options.fsync) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    safeUnlink(tmp);
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (error) {
    safeUnlink(tmp);
    throw error;
  }
}

function safeUnlink(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // The temp file may never have been created; nothing else to clean.
  }
}
