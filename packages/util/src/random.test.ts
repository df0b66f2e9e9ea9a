import { describe, expect, it } from "vitest";
import { randomBytes, randomToken } from "./random.js";

describe("random bytes", () => {
  it("gives as many bytes as asked, different each time", () => {
    const a = randomBytes(32);
    const b = randomBytes(32);
    expect(a).toHaveLength(32);
    expect(a.equals(b)).toBe(false);
    expect(randomBytes(0)).toHaveLength(0);
  });

  it("makes tokens of 32 hex digits that do not repeat", () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => randomToken()));
    expect(tokens.size).toBe(1000);
    for (const token of tokens) expect(token).toMatch(/^[0-9a-f]{32}$/);
  });
});
