/** Crockford Base32 alphabet: no I, L, O, U. */
export const CROCKFORD_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

const DECODE: Record<string, number> = {};
for (let i = 0; i < CROCKFORD_ALPHABET.length; i++) {
  DECODE[CROCKFORD_ALPHABET[i]!] = i;
  DECODE[CROCKFORD_ALPHABET[i]!.toLowerCase()] = i;
}
// Crockford's decoding aliases for characters people mistype.
for (const [alias, value] of [
  ["O", 0],
  ["o", 0],
  ["I", 1],
  ["i", 1],
  ["L", 1],
  ["l", 1],
] as const) {
  DECODE[alias] = value;
}

/**
 * Encode an unsigned integer as exactly `length` Crockford characters, most significant first.
 * The value must fit in `5 * length` bits.
 */
export function encodeBase32(value: bigint, length: number): string {
  if (value < 0n) throw new RangeError("encodeBase32: negative value");
  let out = "";
  let rest = value;
  for (let i = 0; i < length; i++) {
    out = CROCKFORD_ALPHABET[Number(rest & 31n)] + out;
    rest >>= 5n;
  }
  if (rest !== 0n) throw new RangeError(`encodeBase32: value does not fit in ${length} characters`);
  return out;
}

/** Decode Crockford Base32 (case-insensitive, O→0, I/L→1). Throws on other characters. */
export function decodeBase32(text: string): bigint {
  let value = 0n;
  for (const ch of text) {
    const digit = DECODE[ch];
    if (digit === undefined) throw new RangeError(`decodeBase32: invalid character "${ch}"`);
    value = (value << 5n) | BigInt(digit);
  }
  return value;
}
