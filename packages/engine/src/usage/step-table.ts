import { USAGE_FIELDS, type Usage } from "@united-workforce/protocol";
import { hashFromWords, hashWords } from "@united-workforce/util";

/** What `uwf usage` needs of one step. */
export interface StepRow {
  hash: string;
  /** The step's row in its table: a number to mark it by (`RowFlags`). */
  index: number;
  startedAtMs: number;
  completedAtMs: number;
  role: string;
  agent: string;
  /** The model its detail names; null when the adapter did not say. */
  model: string | null;
  usage: Usage;
}

/** A step as the table takes it in: its row, and the step before it. */
export type NewStep = Omit<StepRow, "index"> & { prev: string | null };

const TIMES = 2;
const NAMES = 3;
const FIGURES = USAGE_FIELDS.length;

/**
 * Every step a usage report knows, as columns in typed arrays: a step's hash and the hash of
 * the step before it as two 32-bit words each, found through an open-addressing table of row
 * numbers; the times and figures (NaN: not reported); the names as indexes into one list. About
 * 110 bytes a step and no object per step: a report over a million nodes keeps every step of
 * the store (issue 29: under 64 bytes a node). A name that is not a 64-bit hash (none from uwf)
 * is kept as a string beside the columns.
 */
export class StepTable {
  #size = 0;
  #capacity = 0;
  #hashHi = new Uint32Array(0);
  #hashLo = new Uint32Array(0);
  #prevHi = new Uint32Array(0);
  #prevLo = new Uint32Array(0);
  /** 0: no step before; 1: `#prevHi`/`#prevLo`; 2: an odd name in `#oddPrevs`. */
  #prevKind = new Uint8Array(0);
  #times = new Float64Array(0);
  #names = new Uint32Array(0);
  #figures = new Float64Array(0);
  /** Row + 1 by the hash's words (0: empty), at most half full. */
  #slots = new Int32Array(1024);
  readonly #oddRows = new Map<string, number>();
  readonly #oddHashes = new Map<number, string>();
  readonly #oddPrevs = new Map<number, string>();
  readonly #nameList: string[] = [];
  readonly #nameIndex = new Map<string, number>();

  /** `expected`: about how many steps will come (a cache file's size tells), to grow once. */
  constructor(expected = 1024) {
    this.#resize(Math.max(expected, 16));
  }

  get size(): number {
    return this.#size;
  }

  has(hash: string): boolean {
    return this.indexOf(hash) !== undefined;
  }

  /** The row of `hash`, or undefined when the table does not hold it. */
  indexOf(hash: string): number | undefined {
    const words = hashWords(hash);
    if (words === null) return this.#oddRows.get(hash);
    const slot = this.#slotOf(words.hi, words.lo);
    const row = this.#slots[slot]!;
    return row === 0 ? undefined : row - 1;
  }

  /** Take a step in (a step already held is left as it is); its row number. */
  add(step: NewStep): number {
    const known = this.indexOf(step.hash);
    if (known !== undefined) return known;
    if (this.#size === this.#capacity) this.#resize(Math.ceil(this.#capacity * 1.5));
    const index = this.#size++;
    const words = hashWords(step.hash);
    if (words === null) {
      this.#oddRows.set(step.hash, index);
      this.#oddHashes.set(index, step.hash);
    } else {
      this.#hashHi[index] = words.hi;
      this.#hashLo[index] = words.lo;
      this.#slots[this.#slotOf(words.hi, words.lo)] = index + 1;
    }
    const prev = step.prev === null ? null : hashWords(step.prev);
    if (step.prev === null) this.#prevKind[index] = 0;
    else if (prev === null) {
      this.#prevKind[index] = 2;
      this.#oddPrevs.set(index, step.prev);
    } else {
      this.#prevKind[index] = 1;
      this.#prevHi[index] = prev.hi;
      this.#prevLo[index] = prev.lo;
    }
    this.#times[index * TIMES] = step.startedAtMs;
    this.#times[index * TIMES + 1] = step.completedAtMs;
    this.#names[index * NAMES] = this.#name(step.role);
    this.#names[index * NAMES + 1] = this.#name(step.agent);
    this.#names[index * NAMES + 2] = step.model === null ? 0 : this.#name(step.model) + 1;
    for (const [i, field] of USAGE_FIELDS.entries()) {
      this.#figures[index * FIGURES + i] = step.usage[field] ?? Number.NaN;
    }
    return index;
  }

  hashOf(index: number): string {
    return this.#oddHashes.get(index) ?? hashFromWords(this.#hashHi[index]!, this.#hashLo[index]!);
  }

  prevOf(index: number): string | null {
    const kind = this.#prevKind[index];
    if (kind === 0) return null;
    if (kind === 2) return this.#oddPrevs.get(index)!;
    return hashFromWords(this.#prevHi[index]!, this.#prevLo[index]!);
  }

  completedAtMsOf(index: number): number {
    return this.#times[index * TIMES + 1]!;
  }

  row(index: number): StepRow {
    const model = this.#names[index * NAMES + 2]!;
    const usage = {} as Record<(typeof USAGE_FIELDS)[number], number | null>;
    for (const [i, field] of USAGE_FIELDS.entries()) {
      const figure = this.#figures[index * FIGURES + i]!;
      usage[field] = Number.isNaN(figure) ? null : figure;
    }
    return {
      hash: this.hashOf(index),
      index,
      startedAtMs: this.#times[index * TIMES]!,
      completedAtMs: this.#times[index * TIMES + 1]!,
      role: this.#nameList[this.#names[index * NAMES]!]!,
      agent: this.#nameList[this.#names[index * NAMES + 1]!]!,
      model: model === 0 ? null : this.#nameList[model - 1]!,
      usage: usage as Usage,
    };
  }

  /** The slot of these words: the one holding their row, or the empty one they would take. */
  #slotOf(hi: number, lo: number): number {
    const mask = this.#slots.length - 1;
    // The words are already a hash's: their low bits mixed with the high ones spread well.
    let slot = (Math.imul(lo ^ hi, 0x9e3779b1) >>> 0) & mask;
    for (;;) {
      const row = this.#slots[slot]!;
      if (row === 0 || (this.#hashHi[row - 1] === hi && this.#hashLo[row - 1] === lo)) return slot;
      slot = (slot + 1) & mask;
    }
  }

  #rehash(length: number): void {
    this.#slots = new Int32Array(length);
    for (let index = 0; index < this.#size; index++) {
      if (this.#oddHashes.has(index)) continue;
      this.#slots[this.#slotOf(this.#hashHi[index]!, this.#hashLo[index]!)] = index + 1;
    }
  }

  #name(name: string): number {
    let index = this.#nameIndex.get(name);
    if (index === undefined) {
      index = this.#nameList.length;
      this.#nameList.push(name);
      this.#nameIndex.set(name, index);
    }
    return index;
  }

  /** Columns for `capacity` rows, and slots for twice as many. */
  #resize(capacity: number): void {
    this.#capacity = capacity;
    this.#hashHi = grown(this.#hashHi, capacity);
    this.#hashLo = grown(this.#hashLo, capacity);
    this.#prevHi = grown(this.#prevHi, capacity);
    this.#prevLo = grown(this.#prevLo, capacity);
    this.#prevKind = grown(this.#prevKind, capacity);
    this.#times = grown(this.#times, capacity * TIMES);
    this.#names = grown(this.#names, capacity * NAMES);
    this.#figures = grown(this.#figures, capacity * FIGURES);
    let slots = this.#slots.length;
    while (slots < capacity * 2) slots *= 2;
    if (slots !== this.#slots.length) this.#rehash(slots);
  }
}

/** One flag a row of a `StepTable`, growing with it. */
export class RowFlags {
  #flags = new Uint8Array(1024);

  has(index: number): boolean {
    return index < this.#flags.length && this.#flags[index] === 1;
  }

  add(index: number): void {
    if (index >= this.#flags.length) {
      this.#flags = grown(this.#flags, Math.max(index + 1, this.#flags.length * 2));
    }
    this.#flags[index] = 1;
  }
}

function grown<T extends Float64Array | Uint32Array | Uint8Array | Int32Array>(
  array: T,
  length: number,
): T {
  const bigger = new (array.constructor as new (length: number) => T)(length);
  bigger.set(array);
  return bigger;
}
