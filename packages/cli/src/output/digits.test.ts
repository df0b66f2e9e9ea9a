import { describe, expect, it } from "vitest";
import { groupDigits } from "./digits.js";

describe("groupDigits", () => {
  it("groups thousands as en-US does", () => {
    const values = [0, 7, 12, 999, 1000, 12_345, 123_456, 1_234_567, -1, -1000, -987_654_321];
    for (let n = 1; n < Number.MAX_SAFE_INTEGER / 7; n = n * 7 + 3) values.push(n, -n);
    values.push(Number.MAX_SAFE_INTEGER);
    for (const value of values) expect(groupDigits(value)).toBe(value.toLocaleString("en-US"));
  });

  it("leaves a fraction or a huge number to toLocaleString", () => {
    expect(groupDigits(1234.5)).toBe("1,234.5");
    expect(groupDigits(2 ** 60)).toBe((2 ** 60).toLocaleString("en-US"));
  });
});
