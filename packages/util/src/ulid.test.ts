import { THREAD_ID_PATTERN } from "@united-workforce/protocol";
import { decodeTime, ulid as referenceUlid } from "ulid";
import { describe, expect, it } from "vitest";
import { newUlid, ulidTime, ulidTimePart } from "./ulid.js";

describe("ULIDs", () => {
  it("encode their creation instant", () => {
    const now = Date.UTC(2026, 10, 22, 1, 2, 3, 456);
    expect(ulidTime(newUlid(now))).toBe(now);
    const before = Date.now();
    const id = newUlid();
    expect(ulidTime(id)).toBeGreaterThanOrEqual(before);
    expect(ulidTime(id)).toBeLessThanOrEqual(Date.now());
  });

  it("are valid thread ids and sort by creation even within one millisecond", () => {
    const ids = Array.from({ length: 100 }, () => newUlid(1_700_000_000_000));
    for (const id of ids) expect(id).toMatch(THREAD_ID_PATTERN);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(100);
  });
});

describe("ULIDs, against the reference implementation", () => {
  it("decode the same as the `ulid` package, and decode its ids the same", () => {
    for (let i = 0; i < 50; i++) {
      const now = Math.floor(Math.random() * 2 ** 47);
      const ours = newUlid(now);
      expect(decodeTime(ours)).toBe(ulidTime(ours));
      const theirs = referenceUlid(now);
      expect(ulidTime(theirs)).toBe(now);
    }
  });

  it("count up within one millisecond, past a carry into the next character", () => {
    const now = 2 ** 46;
    const first = newUlid(now);
    const ids = Array.from({ length: 40 }, () => newUlid(now));
    expect([first, ...ids].sort()).toEqual([first, ...ids]);
    expect(ids.every((id) => id.slice(0, 10) === first.slice(0, 10))).toBe(true);
  });

  it("refuses a time a ULID cannot hold", () => {
    expect(() => newUlid(-1)).toThrow(RangeError);
    expect(() => newUlid(2 ** 48)).toThrow(RangeError);
  });

  it("give a time part that depends on the time alone, whatever ids the process made", () => {
    const then = Date.UTC(2026, 10, 24, 7, 0, 0);
    newUlid(then + 60_000); // the process's last time is now past `then`
    expect(ulidTimePart(then)).toBe(ulidTimePart(then));
    expect(ulidTime(`${ulidTimePart(then)}${"0".repeat(16)}`)).toBe(then);
    expect(ulidTimePart(then + 1)).not.toBe(ulidTimePart(then));
    expect(() => ulidTimePart(2 ** 48)).toThrow(RangeError);
  });
});
