import { decodeBase32, encodeBase32 } from "./base32.js";
import { randomBytes } from "./random.js";

// ULIDs (https://github.com/ulid/spec): 48 bits of milliseconds, then 80 random bits, both in
// Crockford Base32. Written here rather than taken from the `ulid` package, whose Node build
// loads node:crypto at import, which every `uwf` start would pay (DESIGN §14).
const TIME_CHARS = 10;
const RANDOM_CHARS = 16;
const MAX_TIME = 2 ** 48 - 1;
const MAX_RANDOM = (1n << 80n) - 1n;

let lastTime = -1;
let lastRandom = 0n;

/** A new ULID; monotonic within the process so ids made in one millisecond still sort. */
export function newUlid(nowMs: number = Date.now()): string {
  if (!Number.isInteger(nowMs) || nowMs < 0 || nowMs > MAX_TIME) {
    throw new RangeError(`newUlid: ${nowMs} is not a time a ULID can hold`);
  }
  if (nowMs <= lastTime) {
    // Same (or an earlier) millisecond: keep the last time and count up, as the spec says.
    if (lastRandom === MAX_RANDOM) throw new RangeError("newUlid: random part overflowed");
    lastRandom += 1n;
  } else {
    lastTime = nowMs;
    const bytes = randomBytes(10);
    lastRandom = BigInt(`0x${bytes.toString("hex")}`);
  }
  return encodeBase32(BigInt(lastTime), TIME_CHARS) + encodeBase32(lastRandom, RANDOM_CHARS);
}

/**
 * The ten-character time part of a ULID for `ms`, pure: unlike `newUlid` it ignores the
 * process's last time, so ids derived from data (fan-out children) are the same in every
 * process and every call.
 */
export function ulidTimePart(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms > MAX_TIME) {
    throw new RangeError(`ulidTimePart: ${ms} is not a time a ULID can hold`);
  }
  return encodeBase32(BigInt(ms), TIME_CHARS);
}

/** The creation instant (ms since epoch) encoded in a ULID. */
export function ulidTime(id: string): number {
  if (id.length !== TIME_CHARS + RANDOM_CHARS) throw new Error(`not a ULID: ${id}`);
  const time = Number(decodeBase32(id.slice(0, TIME_CHARS)));
  if (time > MAX_TIME) throw new Error(`not a ULID: ${id}`);
  return time;
}
