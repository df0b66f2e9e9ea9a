import XXH from "xxhashjs";
import { encodeBase32 } from "./base32.js";

/** Length of a CAS hash: 64 bits in Crockford Base32, the first character carrying 4 bits. */
export const HASH_LENGTH = 13;

const encoder = new TextEncoder();

/** XXH64 (seed 0) of the bytes, as 13 upper-case Crockford Base32 characters. */
export function hashBytes(bytes: Uint8Array | string): string {
  const data = typeof bytes === "string" ? encoder.encode(bytes) : bytes;
  // An ArrayBuffer keeps xxhashjs on its typed-array path; given a Buffer it calls the
  // deprecated `new Buffer()`, which prints a warning in every process.
  const buffer = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
  const digest = XXH.h64(0)
    .update(buffer as ArrayBuffer)
    .digest() as unknown as Uint64Parts;
  // The digest's four 16-bit parts, joined with BigInt: its own toString(16) goes through
  // 64-bit division emulation, which a profile of one exec step put at ~16 ms.
  const value =
    (BigInt(digest._a48) << 48n) |
    (BigInt(digest._a32) << 32n) |
    (BigInt(digest._a16) << 16n) |
    BigInt(digest._a00);
  return encodeBase32(value, HASH_LENGTH);
}

/** How xxhashjs' UINT64 (the `cuint` package) holds a value: four 16-bit parts. */
interface Uint64Parts {
  _a00: number;
  _a16: number;
  _a32: number;
  _a48: number;
}
