import { describe, expect, it } from "vitest";
import { decodeBase32, encodeBase32 } from "./base32.js";

describe("Crockford Base32", () => {
  it("round-trips 64-bit values in 13 characters", () => {
    for (const value of [0n, 1n, 31n, 32n, 0xdeadbeefn, 2n ** 64n - 1n]) {
      const text = encodeBase32(value, 13);
      expect(text).toHaveLength(13);
      expect(decodeBase32(text)).toBe(value);
    }
  });

  it("uses the Crockford alphabet and puts the 4 spare bits first", () => {
    expect(encodeBase32(2n ** 64n - 1n, 13)).toBe("FZZZZZZZZZZZZ");
    expect(encodeBase32(10n, 2)).toBe("0A");
    expect(encodeBase32(18n, 1)).toBe("J");
  });

  it("decodes lower case and the O/I/L aliases", () => {
    expect(decodeBase32("0a")).toBe(10n);
    expect(decodeBase32("O1")).toBe(decodeBase32("01"));
    expect(decodeBase32("IL")).toBe(decodeBase32("11"));
  });

  it("refuses characters outside the alphabet and values that do not fit", () => {
    expect(() => decodeBase32("U")).toThrow(/invalid character "U"/);
    expect(() => encodeBase32(32n, 1)).toThrow(/does not fit/);
  });
});
