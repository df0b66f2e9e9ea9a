import { closeSync, openSync, readdirSync, unlinkSync, writeSync } from "node:fs";
import { UwfError } from "@united-workforce/util";

/** Store files hold threads' work: readable by their owner only. */
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

export function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

export function isMissing(error: unknown): boolean {
  return codeOf(error) === "ENOENT";
}

/**
 * Create `path` exclusively and write all of `bytes` to it. `writeSync` may write less than it
 * was given (a nearly full disk): it is called again until everything is written, and a file
 * that cannot be completed is removed, so no caller ever links a truncated file into place.
 */
export function writeNewFile(path: string, bytes: Uint8Array): void {
  const fd = openSync(path, "wx", FILE_MODE);
  try {
    let offset = 0;
    while (offset < bytes.length) {
      const written = writeSync(fd, bytes, offset, bytes.length - offset);
      if (written <= 0) {
        throw new UwfError("IO", `${path}: the disk accepted no more bytes`, {
          hint: "free some disk space, then try again",
        });
      }
      offset += written;
    }
  } catch (error) {
    closeSync(fd);
    unlinkQuietly(path);
    throw error;
  }
  closeSync(fd);
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
