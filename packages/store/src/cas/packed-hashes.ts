import { hashFromWords, hashWords as wordsOf } from "@united-workforce/util";

/**
 * A set of CAS hashes that whole-store commands (gc) keep for every stored node, packed: a
 * hash is 64 bits in 13 Base32 characters, so it is held as two 32-bit words in sorted typed
 * arrays, 8 bytes a hash, where a `Set<string>` costs about 100. Each hash has an index, so a
 * caller keeps one byte of state a node beside it (`marks`). Built once from a listing; hashes
 * found later live outside it (`indexOf` is -1).
 */
export class PackedHashes {
  readonly #hi: Uint32Array;
  readonly #lo: Uint32Array;
  /** Names `list()` gave that are not 64-bit hashes (none from uwf): kept as they are. */
  readonly #odd: string[];

  private constructor(hi: Uint32Array, lo: Uint32Array, odd: string[]) {
    this.#hi = hi;
    this.#lo = lo;
    this.#odd = odd;
  }

  static async from(hashes: AsyncIterable<string>): Promise<PackedHashes> {
    let packed = new BigUint64Array(1024);
    let size = 0;
    const odd = new Set<string>();
    for await (const hash of hashes) {
      const words = wordsOf(hash);
      if (words === null) {
        odd.add(hash);
        continue;
      }
      if (size === packed.length) {
        const grown = new BigUint64Array(packed.length * 2);
        grown.set(packed);
        packed = grown;
      }
      packed[size++] = (BigInt(words.hi) << 32n) | BigInt(words.lo);
    }
    const sorted = packed.subarray(0, size).sort();
    const hi = new Uint32Array(size);
    const lo = new Uint32Array(size);
    let unique = 0;
    for (let i = 0; i < size; i++) {
      const value = sorted[i]!;
      if (i > 0 && value === sorted[i - 1]) continue;
      hi[unique] = Number(value >> 32n);
      lo[unique] = Number(value & 0xffffffffn);
      unique++;
    }
    const trim = (words: Uint32Array) => (unique === size ? words : words.slice(0, unique));
    return new PackedHashes(trim(hi), trim(lo), [...odd].sort());
  }

  /** How many hashes: indexes run from 0 to size - 1. */
  get size(): number {
    return this.#hi.length + this.#odd.length;
  }

  /** The index of `hash`, or -1 when it is not in the set. */
  indexOf(hash: string): number {
    const words = wordsOf(hash);
    if (words === null) {
      const at = this.#odd.indexOf(hash);
      return at < 0 ? -1 : this.#hi.length + at;
    }
    const { hi, lo } = words;
    let low = 0;
    let high = this.#hi.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const midHi = this.#hi[mid]!;
      const midLo = this.#lo[mid]!;
      if (midHi === hi && midLo === lo) return mid;
      if (midHi < hi || (midHi === hi && midLo < lo)) low = mid + 1;
      else high = mid - 1;
    }
    return -1;
  }

  /** The hash at `index`, as the 13 characters it was listed as. */
  hashAt(index: number): string {
    if (index >= this.#hi.length) return this.#odd[index - this.#hi.length]!;
    return hashFromWords(this.#hi[index]!, this.#lo[index]!);
  }
}
