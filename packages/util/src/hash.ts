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
  const hex = XXH.h64(0)
    .update(buffer as ArrayBuffer)
    .digest()
    .toString(16);
  return encodeBase32(BigInt(`0x${hex}`), HASH_LENGTH);
}
