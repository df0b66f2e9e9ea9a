import { THREAD_ID_PATTERN } from "@united-workforce/protocol";
import { describe, expect, it } from "vitest";
import { newUlid, ulidTime } from "./ulid.js";

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
