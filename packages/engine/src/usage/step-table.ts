import { USAGE_FIELDS, type Usage } from "@united-workforce/protocol";

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
 * Every step a usage report knows, as columns: a row number per step hash, and the numbers in
 * typed arrays (a figure not reported is NaN), the names as indexes into one list of names.
 * About 160 bytes a step, against about 500 as objects: a report over a million nodes keeps
 * every step of the store (issue 29: under 64 bytes a node).
 */
export class StepTable {
  readonly #rows = new Map<string, number>();
  readonly #hashes: string[] = [];
  readonly #prevs: (string | null)[] = [];
  #times = new Float64Array(1024 * TIMES);
  #names = new Uint32Array(1024 * NAMES);
  #figures = new Float64Array(1024 * FIGURES);
  readonly #nameList: string[] = [];
  readonly #nameIndex = new Map<string, number>();

  get size(): number {
    return this.#hashes.length;
  }

  has(hash: string): boolean {
    return this.#rows.has(hash);
  }

  /** The row of `hash`, or undefined when the table does not hold it. */
  indexOf(hash: string): number | undefined {
    return this.#rows.get(hash);
  }

  /** Take a step in (a step already held is left as it is); its row number. */
  add(step: NewStep): number {
    const known = this.#rows.get(step.hash);
    if (known !== undefined) return known;
    const index = this.#hashes.length;
    this.#grow(index + 1);
    this.#rows.set(step.hash, index);
    this.#hashes.push(step.hash);
    // The step before is usually held too: its row's string, not a copy of it.
    const prevIndex = step.prev === null ? undefined : this.#rows.get(step.prev);
    this.#prevs.push(prevIndex === undefined ? step.prev : this.#hashes[prevIndex]!);
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

  /** Point every row's `prev` at the string its step's row holds (after a load in any order). */
  shareHashes(): void {
    for (const [index, prev] of this.#prevs.entries()) {
      const prevIndex = prev === null ? undefined : this.#rows.get(prev);
      if (prevIndex !== undefined) this.#prevs[index] = this.#hashes[prevIndex]!;
    }
  }

  prevOf(index: number): string | null {
    return this.#prevs[index]!;
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
      hash: this.#hashes[index]!,
      index,
      startedAtMs: this.#times[index * TIMES]!,
      completedAtMs: this.#times[index * TIMES + 1]!,
      role: this.#nameList[this.#names[index * NAMES]!]!,
      agent: this.#nameList[this.#names[index * NAMES + 1]!]!,
      model: model === 0 ? null : this.#nameList[model - 1]!,
      usage: usage as Usage,
    };
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

  #grow(rows: number): void {
    if (rows * TIMES <= this.#times.length) return;
    const capacity = Math.max(rows, (this.#times.length / TIMES) * 2);
    this.#times = grown(this.#times, capacity * TIMES);
    this.#names = grown(this.#names, capacity * NAMES);
    this.#figures = grown(this.#figures, capacity * FIGURES);
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

function grown<T extends Float64Array | Uint32Array | Uint8Array>(array: T, length: number): T {
  const bigger = new (array.constructor as new (length: number) => T)(length);
  bigger.set(array);
  return bigger;
}
