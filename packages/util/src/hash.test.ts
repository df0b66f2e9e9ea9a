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

  it("reads xxhashjs' digest exactly as its own hex rendering does, for any input", () => {
    // The digest's 16-bit parts are read directly (fast); this pins them to the slow path.
    for (let i = 0; i < 300; i++) {
      const bytes = new Uint8Array(randomBytes(i % 97 === 0 ? 4096 + i : i));
      const hex = XXH.h64(0).update(bytes.buffer).digest().toString(16);
      expect(hashBytes(bytes)).toBe(expectedFor(BigInt(`0x${hex}`)));
    }
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
