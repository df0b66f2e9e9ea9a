import { writeSync } from "node:fs";
import type { WriteFunction } from "../write-fully.js";

/** A disk that takes at most `chunk` bytes per call, and nothing once `capacity` is reached. */
export function stingyWrite(chunk: number, capacity = Number.POSITIVE_INFINITY): WriteFunction {
  let total = 0;
  return (fd, buffer, offset, length) => {
    const take = Math.min(chunk, length, capacity - total);
    if (take <= 0) return 0;
    total += take;
    return writeSync(fd, buffer, offset, take);
  };
}

/** A disk with `capacity` bytes free: the write that fills it is short, the next fails ENOSPC. */
export function fullDiskAfter(capacity: number): WriteFunction {
  let total = 0;
  return (fd, buffer, offset, length) => {
    if (total >= capacity) {
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), {
        code: "ENOSPC",
        errno: -28,
        syscall: "write",
      });
    }
    const take = Math.min(length, capacity - total);
    total += take;
    return writeSync(fd, buffer, offset, take);
  };
}
