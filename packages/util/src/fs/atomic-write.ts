import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { PRIVATE_FILE_MODE } from "../home.js";
import { ioError } from "./io-error.js";
import { type WriteFunction, writeFully } from "./write-fully.js";

let counter = 0;

export interface AtomicWriteOptions {
  /** Defaults to 0600: files under UWF_HOME hold transcripts and keys, for their owner only. */
  mode?: number;
  fsync?: boolean;
}

/**
 * Write a file so that readers see either the old content or the new, never a part: write a
 * temp file in the same directory, then rename it over the target. Any failure (a full disk,
 * a read-only or unwritable folder) is an IO error naming `path`, and the temp file is gone.
 * `data` may come in parts (an iterable of strings), so a big file is never one string.
 */
export function writeFileAtomic(
  path: string,
  data: string | Uint8Array | Iterable<string>,
  options: AtomicWriteOptions = {},
): void {
  writeFileAtomicWith(writeSync, path, data, options);
}

/** The writer with its `write` call injected, so tests can play short writes and a full disk. */
export function writeFileAtomicWith(
  write: WriteFunction,
  path: string,
  data: string | Uint8Array | Iterable<string>,
  options: AtomicWriteOptions = {},
): void {
  const tmp = join(dirname(path), `.tmp-${process.pid}-${Date.now()}-${counter++}`);
  let fd: number;
  try {
    fd = openSync(tmp, "wx", options.mode ?? PRIVATE_FILE_MODE);
  } catch (error) {
    throw ioError(error, path);
  }
  try {
    if (typeof data === "string") writeFully(fd, Buffer.from(data, "utf8"), path, write);
    else if (data instanceof Uint8Array) writeFully(fd, data, path, write);
    else for (const part of data) writeFully(fd, Buffer.from(part, "utf8"), path, write);
    if (options.fsync) fsyncSync(fd);
  } catch (error) {
    safeClose(fd);
    safeUnlink(tmp);
    throw ioError(error, path);
  }
  try {
    // A network file system may report a full disk or quota only when the file is closed.
    closeSync(fd);
    renameSync(tmp, path);
  } catch (error) {
    safeUnlink(tmp);
    throw ioError(error, path);
  }
}

function safeClose(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // The write already failed; that is the error worth reporting.
  }
}

function safeUnlink(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // The temp file may never have been created; nothing else to clean.
  }
}
