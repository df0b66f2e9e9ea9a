import { closeSync, linkSync, openSync, readdirSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { ioError, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, writeFully } from "@united-workforce/util";

/** Store files hold threads' work: readable by their owner only. */
export const FILE_MODE = PRIVATE_FILE_MODE;
export const DIR_MODE = PRIVATE_DIR_MODE;

export function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

export function isMissing(error: unknown): boolean {
  return codeOf(error) === "ENOENT";
}

/**
 * Create `path` exclusively and write all of `bytes` to it (`writeFully` loops over short
 * writes). A file that cannot be completed is removed, so no caller ever links a truncated file
 * into place. Failures other than EEXIST and ENOENT (which callers act on) are IO errors naming
 * `target`: the file the caller is really writing, not its temp name.
 */
export function writeNewFile(path: string, bytes: Uint8Array, target = path): void {
  let fd: number;
  try {
    fd = openSync(path, "wx", FILE_MODE);
  } catch (error) {
    const code = codeOf(error);
    if (code === "EEXIST" || code === "ENOENT") throw error;
    throw ioError(error, target);
  }
  try {
    writeFully(fd, bytes, target);
  } catch (error) {
    closeSync(fd);
    unlinkQuietly(path);
    throw error;
  }
  closeSync(fd);
}

let tempCounter = 0;

/**
 * Create `path` only if it does not exist, complete from its first instant: the bytes go to a
 * temp file that is hard-linked into place, so exactly one creator wins and no reader sees a
 * part. False when the path already exists. Where hard links are missing, O_EXCL still picks
 * one winner (a reader may then briefly see a partial file).
 */
export function createOnce(path: string, bytes: Uint8Array): boolean {
  const temp = join(dirname(path), `.tmp-${process.pid}-${tempCounter++}`);
  writeNewFile(temp, bytes, path);
  try {
    linkSync(temp, path);
    return true;
  } catch (error) {
    if (codeOf(error) === "EEXIST") return false;
    try {
      writeNewFile(path, bytes);
      return true;
    } catch (exclusive) {
      if (codeOf(exclusive) === "EEXIST") return false;
      throw exclusive;
    }
  } finally {
    unlinkQuietly(temp);
  }
}

export function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

/** The names in a folder; none when it does not exist yet. */
export function listNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
