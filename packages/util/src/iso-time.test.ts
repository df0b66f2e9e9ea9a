import { describe, expect, it } from "vitest";
import { isoTime } from "./iso-time.js";

describe("isoTime", () => {
  it("writes what toISOString writes, over the years uwf meets and their edges", () => {
    const times = [
      0,
      1,
      999,
      Date.UTC(1999, 11, 31, 23, 59, 59, 999),
      Date.UTC(2000, 1, 29, 12, 0, 0, 5),
      Date.UTC(2026, 10, 25, 2, 6, 39, 464),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(10_000, 0, 1),
      -1,
      Date.UTC(-1, 0, 1),
    ];
    for (let ms = 0; ms < 4e12; ms += 7_777_777_777) times.push(ms);
    for (const ms of times) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it("is now when given no time", () => {
    const before = Date.now();
    const parsed = Date.parse(isoTime());
    expect(parsed).toBeGreaterThanOrEqual(before);
    expect(parsed).toBeLessThanOrEqual(Date.now());
  });

  it("throws on a time that is not one, as toISOString does", () => {
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
  });
});
