import { decodeTime, monotonicFactory } from "ulid";

const next = monotonicFactory();

/** A new ULID; monotonic within the process so ids made in one millisecond still sort. */
export function newUlid(nowMs: number = Date.now()): string {
  return next(nowMs);
}

/** The creation instant (ms since epoch) encoded in a ULID. */
export function ulidTime(id: string): number {
  return decodeTime(id);
}
