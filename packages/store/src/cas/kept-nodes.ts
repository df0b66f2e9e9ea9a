/**
 * Kept node bytes, the oldest dropped past a bound: a long run (`-c N`, fan-outs) keeps what
 * its next steps read, not every node it ever wrote. Two generations of half the bound each:
 * when the newer fills, the older is dropped whole. (Dropping the oldest node of one Map per add
 * was quadratic: a Map iterated from its oldest end walks past every entry deleted since its
 * last rehash, 24 s of a 27 s `verify --all` at 100k threads on PostgreSQL.)
 */
export class KeptNodes {
  readonly #maxBytes: number;
  #newer = new Map<string, Uint8Array>();
  #older = new Map<string, Uint8Array>();
  #newerBytes = 0;

  constructor(maxBytes = 16 * 1024 * 1024) {
    this.#maxBytes = maxBytes;
  }

  get(hash: string): Uint8Array | undefined {
    return this.#newer.get(hash) ?? this.#older.get(hash);
  }

  add(hash: string, bytes: Uint8Array): void {
    if (bytes.byteLength > this.#maxBytes / 2 || this.#newer.has(hash)) return;
    // Kept again: it moves to the newer generation, so a walk's shared nodes are not dropped.
    const kept = this.#older.get(hash) ?? bytes;
    this.#older.delete(hash);
    this.#newer.set(hash, kept);
    this.#newerBytes += kept.byteLength;
    if (this.#newerBytes <= this.#maxBytes / 2) return;
    this.#older = this.#newer;
    this.#newer = new Map();
    this.#newerBytes = 0;
  }
}
