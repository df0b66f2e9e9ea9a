import { closeSync, openSync, readSync } from "node:fs";
import { nodeCrypto } from "./builtin.js";

/**
 * `n` cryptographically random bytes. Read from /dev/urandom where there is one: three system
 * calls, where loading node:crypto would cost a start ≈ 3 ms (DESIGN §14); node:crypto
 * otherwise.
 */
export function randomBytes(n: number): Buffer {
  const bytes = Buffer.alloc(n);
  let fd: number | undefined;
  try {
    fd = openSync("/dev/urandom", "r");
    let filled = 0;
    while (filled < n) {
      const read = readSync(fd, bytes, filled, n - filled, null);
      if (read <= 0) throw new Error("/dev/urandom gave nothing");
      filled += read;
    }
    return bytes;
  } catch {
    return nodeCrypto().randomBytes(n);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A random token (128 bits as 32 hex digits): lease tokens and the like. */
export function randomToken(): string {
  return randomBytes(16).toString("hex");
}
