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

/** Rows a block of columns holds: a table grows a block at a time, copying nothing. */
const BLOCK_BITS = 14;
const BLOCK = 1 << BLOCK_BITS;
const IN_BLOCK = BLOCK - 1;

/** The columns of `BLOCK` rows. */
class Block {
  readonly hashHi = new Uint32Array(BLOCK);
  readonly hashLo = new Uint32Array(BLOCK);
  readonly prevHi = new Uint32Array(BLOCK);
  readonly prevLo = new Uint32Array(BLOCK);
  /** 0: no step before; 1: `prevHi`/`prevLo`; 2: an odd name in the table's `#oddPrevs`. */
  readonly prevKind = new Uint8Array(BLOCK);
  readonly times = new Float64Array(BLOCK * TIMES);
  readonly names = new Uint32Array(BLOCK * NAMES);
  readonly figures = new Float64Array(BLOCK * FIGURES);
}

/**
 * Every step a usage report knows, as columns in typed arrays: a step's hash and the hash of
 * the step before it as two 32-bit words each, found through an open-addressing table of row
 * numbers; the times and figures (NaN: not reported); the names as indexes into one list. About
 * 110 bytes a step, no object per step, and blocks of rows so that growing copies nothing: a
 * report over a million nodes keeps every step of the store (issue 29: under 64 bytes a node).
 * A name that is not a 64-bit hash (none from uwf) is kept as a string beside the columns.
 */
export class StepTable {
  #size = 0;
  readonly #blocks: Block[] = [];
  /** Row + 1 by the hash's words (0: empty), at most half full. */
  #slots: Int32Array;
  readonly #oddRows = new Map<string, number>();
  readonly #oddHashes = new Map<number, string>();
  readonly #oddPrevs = new Map<number, string>();
  readonly #nameList: string[] = [];
  readonly #nameIndex = new Map<string, number>();

  /** `expected`: about how many steps will come (a cache file's size tells), to rehash once. */
  constructor(expected = 1024) {
    let slots = 1024;
    while (slots < expected * 2) slots *= 2;
    this.#slots = new Int32Array(slots);
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
    const row = this.#slots[this.#slotOf(words.hi, words.lo)]!;
    return row === 0 ? undefined : row - 1;
  }

  /** Take a step in (a step already held is left as it is); its row number. */
  add(step: NewStep): number {
    const known = this.indexOf(step.hash);
    if (known !== undefined) return known;
    const index = this.#size++;
    if (index >>> BLOCK_BITS === this.#blocks.length) this.#blocks.push(new Block());
    if (this.#size * 2 > this.#slots.length) this.#rehash(this.#slots.length * 2);
    const block = this.#blocks[index >>> BLOCK_BITS]!;
    const at = index & IN_BLOCK;
    const words = hashWords(step.hash);
    if (words === null) {
      this.#oddRows.set(step.hash, index);
      this.#oddHashes.set(index, step.hash);
    } else {
      block.hashHi[at] = words.hi;
      block.hashLo[at] = words.lo;
      this.#slots[this.#slotOf(words.hi, words.lo)] = index + 1;
    }
    const prev = step.prev === null ? null : hashWords(step.prev);
    if (step.prev === null) block.prevKind[at] = 0;
    else if (prev === null) {
      block.prevKind[at] = 2;
      this.#oddPrevs.set(index, step.prev);
    } else {
      block.prevKind[at] = 1;
      block.prevHi[at] = prev.hi;
      block.prevLo[at] = prev.lo;
    }
    block.times[at * TIMES] = step.startedAtMs;
    block.times[at * TIMES + 1] = step.completedAtMs;
    block.names[at * NAMES] = this.#name(step.role);
    block.names[at * NAMES + 1] = this.#name(step.agent);
    block.names[at * NAMES + 2] = step.model === null ? 0 : this.#name(step.model) + 1;
    for (const [i, field] of USAGE_FIELDS.entries()) {
      block.figures[at * FIGURES + i] = step.usage[field] ?? Number.NaN;
    }
    return index;
  }

  hashOf(index: number): string {
    const odd = this.#oddHashes.get(index);
    if (odd !== undefined) return odd;
    const block = this.#blocks[index >>> BLOCK_BITS]!;
    return hashFromWords(block.hashHi[index & IN_BLOCK]!, block.hashLo[index & IN_BLOCK]!);
  }

  prevOf(index: number): string | null {
    const block = this.#blocks[index >>> BLOCK_BITS]!;
    const at = index & IN_BLOCK;
    const kind = block.prevKind[at];
    if (kind === 0) return null;
    if (kind === 2) return this.#oddPrevs.get(index)!;
    return hashFromWords(block.prevHi[at]!, block.prevLo[at]!);
  }

  completedAtMsOf(index: number): number {
    return this.#blocks[index >>> BLOCK_BITS]!.times[(index & IN_BLOCK) * TIMES + 1]!;
  }

  row(index: number): StepRow {
    const block = this.#blocks[index >>> BLOCK_BITS]!;
    const at = index & IN_BLOCK;
    const model = block.names[at * NAMES + 2]!;
    const usage = {} as Record<(typeof USAGE_FIELDS)[number], number | null>;
    for (const [i, field] of USAGE_FIELDS.entries()) {
      const figure = block.figures[at * FIGURES + i]!;
      usage[field] = Number.isNaN(figure) ? null : figure;
    }
    return {
      hash: this.hashOf(index),
      index,
      startedAtMs: block.times[at * TIMES]!,
      completedAtMs: block.times[at * TIMES + 1]!,
      role: this.#nameList[block.names[at * NAMES]!]!,
      agent: this.#nameList[block.names[at * NAMES + 1]!]!,
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
      if (row === 0) return slot;
      const block = this.#blocks[(row - 1) >>> BLOCK_BITS]!;
      const at = (row - 1) & IN_BLOCK;
      if (block.hashHi[at] === hi && block.hashLo[at] === lo) return slot;
      slot = (slot + 1) & mask;
    }
  }

  #rehash(length: number): void {
    this.#slots = new Int32Array(length);
    // The row being added is not filled in yet: it takes its slot after this.
    for (let index = 0; index < this.#size - 1; index++) {
      if (this.#oddHashes.has(index)) continue;
      const block = this.#blocks[index >>> BLOCK_BITS]!;
      const at = index & IN_BLOCK;
      this.#slots[this.#slotOf(block.hashHi[at]!, block.hashLo[at]!)] = index + 1;
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
