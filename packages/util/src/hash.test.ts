import { randomBytes } from "node:crypto";
import { HASH_PATTERN } from "@united-workforce/protocol";
import { describe, expect, it } from "vitest";
import XXH from "xxhashjs";
import { hashBytes } from "./hash.js";

describe("hashBytes", () => {
  it("is XXH64 seed 0 written in Crockford Base32", () => {
    // XXH64("") = 0xEF46DB3751D8E999, XXH64("abc") = 0x44BC2CF5AD770999 (reference vectors).
    expect(hashBytes("")).toBe(expectedFor(0xef46db3751d8e999n));
    expect(hashBytes("abc")).toBe(expectedFor(0x44bc2cf5ad770999n));
  });

  it("always gives 13 characters matching the hash pattern", () => {
    for (const input of ["", "a", '{"type":"schema"}', "x".repeat(5000)]) {
      expect(hashBytes(input)).toMatch(HASH_PATTERN);
    }
  });

  it("gives xxhashjs' XXH64 values for every length and content", () => {
    // Every length up to 300 crosses each branch: 32-byte stripes, 8-, 4- and 1-byte tails.
    for (let i = 0; i < 600; i++) {
      const length = i < 300 ? i : 4096 + i;
      const bytes = new Uint8Array(randomBytes(length));
      if (i % 7 === 0) bytes.fill(0xff);
      const hex = XXH.h64(0).update(bytes.buffer).digest().toString(16);
      expect(hashBytes(bytes)).toBe(expectedFor(BigInt(`0x${hex}`)));
    }
  });

  it("hashes a view by its own bytes, not its whole buffer", () => {
    const whole = Buffer.from("prefix-the node-suffix");
    expect(hashBytes(whole.subarray(7, 15))).toBe(hashBytes("the node"));
  });

  it("hashes strings as UTF-8 bytes", () => {
    expect(hashBytes("é")).toBe(hashBytes(Buffer.from("é", "utf8")));
  });
});

function expectedFor(value: bigint): string {
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  let out = "";
  for (let i = 0; i < 13; i++) {
    out = alphabet[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}
