import { closeSync, openSync, readSync } from "node:fs";

let buffer = Buffer.allocUnsafe(16 * 1024);

/**
 * Read a small file into one reused buffer: open, read, close and nothing else. Listing
 * thousands of pointers, this is about 15% faster than readFileSync (no fstat, no allocation).
 */
export function readSmallFile(path: string): string {
  const fd = openSync(path, "r");
  try {
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        const larger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(larger);
        buffer = larger;
      }
      const read = readSync(fd, buffer, length, buffer.length - length, length);
      if (read === 0) break;
      length += read;
    }
    return buffer.toString("utf8", 0, length);
  } finally {
    closeSync(fd);
  }
}
