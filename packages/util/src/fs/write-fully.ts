import { writeSync } from "node:fs";
import { UwfError } from "../errors.js";
import { ioError } from "./io-error.js";

/** `fs.writeSync`'s buffer form; injectable so tests can play a disk that takes less. */
export type WriteFunction = (
  fd: number,
  buffer: Uint8Array,
  offset: number,
  length: number,
) => number;

/**
 * Write every byte or throw. `write(2)` may take fewer bytes than asked (a nearly full disk, a
 * signal, a quota), and a caller that ignores the count keeps a silently truncated file. A
 * failed or stalled write becomes an IO error naming `path`.
 */
export function writeFully(
  fd: number,
  bytes: Uint8Array,
  path: string,
  write: WriteFunction = writeSync,
): void {
  let offset = 0;
  while (offset < bytes.length) {
    let written: number;
    try {
      written = write(fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      throw ioError(error, path);
    }
    if (!(written > 0)) {
      throw new UwfError(
        "IO",
        `${path}: the write stopped after ${offset} of ${bytes.length} bytes (the disk may be full)`,
        { hint: "Free some disk space and run the command again." },
      );
    }
    offset += written;
  }
}
