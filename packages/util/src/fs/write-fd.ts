import { writeSync } from "node:fs";

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Write text to an open descriptor (stdout is 1, stderr 2) with blocking writes, and say
 * whether it all went out. Writing this way never creates `process.stdout`/`process.stderr`,
 * whose construction for a pipe loads `net` and the stream modules (≈ 4 ms of a start, which
 * every `uwf` run piped into a script would pay; DESIGN §14). Node writes those streams
 * synchronously on Linux anyway.
 *
 * A reader that has gone (EPIPE) or any other failure returns false: the caller stops writing
 * there. A full non-blocking pipe (EAGAIN: another process set O_NONBLOCK on it) is waited on.
 */
export function writeToFd(fd: number, text: string): boolean {
  const bytes = Buffer.from(text, "utf8");
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") return false;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
  return true;
}
