import { CROCKFORD_ALPHABET } from "./base32.js";

/** Length of a CAS hash: 64 bits in Crockford Base32, the first character carrying 4 bits. */
export const HASH_LENGTH = 13;

const encoder = new TextEncoder();

/** XXH64 (seed 0) of the bytes, as 13 upper-case Crockford Base32 characters. */
export function hashBytes(bytes: Uint8Array | string): string {
  xxh64(typeof bytes === "string" ? encoder.encode(bytes) : bytes);
  // 5 bits at a time from the low end of the 64-bit result; the 13th character gets 4 bits.
  let hi = resultHi;
  let lo = resultLo;
  let out = "";
  for (let i = 0; i < HASH_LENGTH; i++) {
    out = CROCKFORD_ALPHABET[lo & 31] + out;
    lo = ((lo >>> 5) | ((hi & 31) << 27)) >>> 0;
    hi >>>= 5;
  }
  return out;
}

const DIGIT = new Map([...CROCKFORD_ALPHABET].map((char, value) => [char, value]));

/**
 * A hash's 64 bits as two 32-bit words (for tables that keep millions of hashes in typed
 * arrays, 8 bytes each), or null for a name that is not one (13 characters ≤ 2^64).
 */
export function hashWords(hash: string): { hi: number; lo: number } | null {
  if (hash.length !== HASH_LENGTH) return null;
  let hi = 0;
  let lo = 0;
  for (let i = 0; i < HASH_LENGTH; i++) {
    const digit = DIGIT.get(hash[i]!);
    // The first character holds the top 4 bits: a larger one is not a 64-bit value.
    if (digit === undefined || (i === 0 && digit > 15)) return null;
    hi = ((hi << 5) | (lo >>> 27)) >>> 0;
    lo = ((lo << 5) | digit) >>> 0;
  }
  return { hi, lo };
}

/** The hash whose words `hashWords` gave. */
export function hashFromWords(hi: number, lo: number): string {
  let out = "";
  for (let i = 0; i < HASH_LENGTH; i++) {
    out = CROCKFORD_ALPHABET[lo & 31] + out;
    lo = ((lo >>> 5) | ((hi & 31) << 27)) >>> 0;
    hi >>>= 5;
  }
  return out;
}

// XXH64 on pairs of unsigned 32-bit halves. xxhashjs, used before, emulates 64-bit arithmetic
// with an object per value: a profile of one exec step put its (cold) hashing at ~9 ms in each
// process; this computes the same values (tests compare them) in a fraction of that, with no
// allocation. Helpers return through `resultHi`/`resultLo` instead of allocating a pair.

const P1_HI = 0x9e3779b1;
const P1_LO = 0x85ebca87;
const P2_HI = 0xc2b2ae3d;
const P2_LO = 0x27d4eb4f;
const P3_HI = 0x165667b1;
const P3_LO = 0x9e3779f9;
const P4_HI = 0x85ebca77;
const P4_LO = 0xc2b2ae63;
const P5_HI = 0x27d4eb2f;
const P5_LO = 0x165667c5;

let resultHi = 0;
let resultLo = 0;

/** (ah:al) × (bh:bl) mod 2^64. */
function mul(ah: number, al: number, bh: number, bl: number): void {
  const a0 = al & 0xffff;
  const a1 = al >>> 16;
  const b0 = bl & 0xffff;
  const b1 = bl >>> 16;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  const carry = a1 * b1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16);
  resultLo = Math.imul(al, bl) >>> 0;
  resultHi = (carry + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0;
}

/** (ah:al) + (bh:bl) mod 2^64. */
function add(ah: number, al: number, bh: number, bl: number): void {
  const lo = al + bl;
  resultLo = lo >>> 0;
  resultHi = (ah + bh + (lo > 0xffffffff ? 1 : 0)) >>> 0;
}

/** (hi:lo) rotated left by 0 < r < 32 bits. */
function rotl(hi: number, lo: number, r: number): void {
  resultHi = ((hi << r) | (lo >>> (32 - r))) >>> 0;
  resultLo = ((lo << r) | (hi >>> (32 - r))) >>> 0;
}

function read32(data: Uint8Array, at: number): number {
  return (data[at]! | (data[at + 1]! << 8) | (data[at + 2]! << 16) | (data[at + 3]! << 24)) >>> 0;
}

/** XXH64's round: rotl(acc + input × P2, 31) × P1. */
function round(accHi: number, accLo: number, inHi: number, inLo: number): void {
  mul(inHi, inLo, P2_HI, P2_LO);
  add(accHi, accLo, resultHi, resultLo);
  rotl(resultHi, resultLo, 31);
  mul(resultHi, resultLo, P1_HI, P1_LO);
}

/** acc = (acc ^ round(0, v)) × P1 + P4 */
function mergeRound(accHi: number, accLo: number, vHi: number, vLo: number): void {
  round(0, 0, vHi, vLo);
  mul((accHi ^ resultHi) >>> 0, (accLo ^ resultLo) >>> 0, P1_HI, P1_LO);
  add(resultHi, resultLo, P4_HI, P4_LO);
}

/** XXH64 with seed 0; the result is left in resultHi:resultLo. */
function xxh64(data: Uint8Array): void {
  // Long by design: XXH64's rounds unrolled over 32-bit halves, in one function for speed.
  const length = data.length;
  let at = 0;
  let hHi: number;
  let hLo: number;
  if (length >= 32) {
    // seed + P1 + P2, seed + P2, seed, seed - P1 (seed 0)
    add(P1_HI, P1_LO, P2_HI, P2_LO);
    let v1Hi = resultHi;
    let v1Lo = resultLo;
    let v2Hi = P2_HI;
    let v2Lo = P2_LO;
    let v3Hi = 0;
    let v3Lo = 0;
    add(~P1_HI >>> 0, ~P1_LO >>> 0, 0, 1);
    let v4Hi = resultHi;
    let v4Lo = resultLo;
    const limit = length - 32;
    do {
      round(v1Hi, v1Lo, read32(data, at + 4), read32(data, at));
      v1Hi = resultHi;
      v1Lo = resultLo;
      round(v2Hi, v2Lo, read32(data, at + 12), read32(data, at + 8));
      v2Hi = resultHi;
      v2Lo = resultLo;
      round(v3Hi, v3Lo, read32(data, at + 20), read32(data, at + 16));
      v3Hi = resultHi;
      v3Lo = resultLo;
      round(v4Hi, v4Lo, read32(data, at + 28), read32(data, at + 24));
      v4Hi = resultHi;
      v4Lo = resultLo;
      at += 32;
    } while (at <= limit);
    rotl(v1Hi, v1Lo, 1);
    hHi = resultHi;
    hLo = resultLo;
    rotl(v2Hi, v2Lo, 7);
    add(hHi, hLo, resultHi, resultLo);
    hHi = resultHi;
    hLo = resultLo;
    rotl(v3Hi, v3Lo, 12);
    add(hHi, hLo, resultHi, resultLo);
    hHi = resultHi;
    hLo = resultLo;
    rotl(v4Hi, v4Lo, 18);
    add(hHi, hLo, resultHi, resultLo);
    mergeRound(resultHi, resultLo, v1Hi, v1Lo);
    mergeRound(resultHi, resultLo, v2Hi, v2Lo);
    mergeRound(resultHi, resultLo, v3Hi, v3Lo);
    mergeRound(resultHi, resultLo, v4Hi, v4Lo);
    hHi = resultHi;
    hLo = resultLo;
  } else {
    hHi = P5_HI;
    hLo = P5_LO;
  }
  // + total length (below 2^53, so its high half is the quotient)
  add(hHi, hLo, Math.floor(length / 0x100000000), length >>> 0);
  hHi = resultHi;
  hLo = resultLo;
  while (at + 8 <= length) {
    round(0, 0, read32(data, at + 4), read32(data, at));
    rotl((hHi ^ resultHi) >>> 0, (hLo ^ resultLo) >>> 0, 27);
    mul(resultHi, resultLo, P1_HI, P1_LO);
    add(resultHi, resultLo, P4_HI, P4_LO);
    hHi = resultHi;
    hLo = resultLo;
    at += 8;
  }
  if (at + 4 <= length) {
    mul(0, read32(data, at), P1_HI, P1_LO);
    rotl((hHi ^ resultHi) >>> 0, (hLo ^ resultLo) >>> 0, 23);
    mul(resultHi, resultLo, P2_HI, P2_LO);
    add(resultHi, resultLo, P3_HI, P3_LO);
    hHi = resultHi;
    hLo = resultLo;
    at += 4;
  }
  while (at < length) {
    mul(0, data[at]!, P5_HI, P5_LO);
    rotl((hHi ^ resultHi) >>> 0, (hLo ^ resultLo) >>> 0, 11);
    mul(resultHi, resultLo, P1_HI, P1_LO);
    hHi = resultHi;
    hLo = resultLo;
    at++;
  }
  // Avalanche: h ^= h >> 33; h *= P2; h ^= h >> 29; h *= P3; h ^= h >> 32.
  mul(hHi, (hLo ^ (hHi >>> 1)) >>> 0, P2_HI, P2_LO);
  hHi = resultHi;
  hLo = resultLo;
  mul((hHi ^ (hHi >>> 29)) >>> 0, (hLo ^ ((hLo >>> 29) | (hHi << 3))) >>> 0, P3_HI, P3_LO);
  resultLo = (resultLo ^ resultHi) >>> 0;
}
