/** Crockford Base32 in the order PostgreSQL sorts its characters (digits, then letters). */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * The smallest Base32 string greater than every string that starts with `prefix`, so
 * `key >= prefix and key < bound` is an index range; null for `Z…Z`, which has none.
 */
export function prefixUpperBound(prefix: string): string | null {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const next = ALPHABET.indexOf(prefix[i]!) + 1;
    if (next > 0 && next < ALPHABET.length) return prefix.slice(0, i) + ALPHABET[next];
  }
  return null;
}
