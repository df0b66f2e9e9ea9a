import { appendFileSync, closeSync, openSync, readSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import {
  BUILTIN_SCHEMA_HASHES,
  type DetailPayload,
  editionsOf,
  isPlainObject,
  type StepPayload,
  type Usage,
} from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { makePrivateDir, writeFileAtomic } from "@united-workforce/util";

import { type NewStep, RowFlags, type StepRow, StepTable } from "./step-table.js";

export type { StepRow } from "./step-table.js";

/** Bump when a line's form changes: a file of another format is rebuilt. */
const FORMAT = 2;
/** Steps read in one round trip (and their details in one more) where the store has them. */
const READ_BATCH = 500;
/** Rounds of a batch of chains' next steps before the chains left are read by their refs. */
const SHORT_CHAIN_ROUNDS = 4;
/** The step schema of every edition: a chain may hold steps an older uwf wrote. */
const STEP_TYPES: ReadonlySet<string> = new Set(
  editionsOf("step").map((edition) => BUILTIN_SCHEMA_HASHES[edition]),
);
/** A file this much larger than what the last whole report used is rewritten without the rest. */
const COMPACT_RATIO = 2;
const COMPACT_MIN_ROWS = 1_000;

/**
 * The steps of every chain `uwf usage` reads, with a local cache: `<home>/cache/usage.jsonl`,
 * one line per step (`[hash, prev, startedAtMs, completedAtMs, role, agent, model, usage]`),
 * appended as steps are first read. A step is immutable, so its line never goes stale, and a
 * chain is always followed from its pointer's head: a thread whose head moved costs the steps
 * it added, one that did not costs nothing. A file that does not parse is rebuilt (deleting it
 * is always safe); one grown past twice what a whole report used is rewritten without the rest
 * (steps of threads since removed). Without it, `uwf usage` read two nodes per step each time
 * (docs/decisions/usage-reports.md); the earlier cache, a file per chain, outgrew the store
 * (docs/decisions/streaming-export-and-usage-cache.md).
 */
export class StepRows {
  readonly #store: Store;
  readonly #file: string;
  readonly #steps: StepTable;
  /** Lines in the file; -1 when there is none to append to (missing, or rebuilt). */
  readonly #fileRows: number;
  /** Rows read from the store by this report (the file's come first). */
  readonly #added: number[] = [];
  readonly #used = new RowFlags();
  #usedCount = 0;

  private constructor(store: Store, file: string, loaded: StepTable | null) {
    this.#store = store;
    this.#file = file;
    this.#steps = loaded ?? new StepTable();
    this.#fileRows = loaded === null ? -1 : loaded.size;
  }

  static open(store: Store): StepRows {
    const file = join(store.home, "cache", "usage.jsonl");
    return new StepRows(store, file, load(file));
  }

  /**
   * Read the steps of the chains from `heads` that are not cached, a batch of chains' next
   * steps a round trip (and their details in one more), down to a step cached or ended before
   * `sinceMs`. Optional: `rows` reads what is missing node by node.
   */
  async fill(heads: Iterable<string>, sinceMs: number): Promise<void> {
    const walked = new RowFlags();
    let frontier = [...new Set(heads)].flatMap(
      (head) => this.#gapFrom(head, sinceMs, walked) ?? [],
    );
    for (let round = 1; frontier.length > 0; round++) {
      // Chains still going after a few rounds are long: find their steps in one statement
      // rather than a round trip a step (where the store can).
      const hashes = round > SHORT_CHAIN_ROUNDS ? await this.#stepsAhead(frontier) : frontier;
      const next: string[] = [];
      for (let from = 0; from < hashes.length; from += READ_BATCH) {
        for (const step of await this.#readSteps(hashes.slice(from, from + READ_BATCH))) {
          if (step.completedAtMs < sinceMs || step.prev === null) continue;
          const gap = this.#gapFrom(step.prev, sinceMs, walked);
          if (gap !== null) next.push(gap);
        }
      }
      frontier = [...new Set(next)].filter((hash) => !this.#steps.has(hash));
    }
  }

  /** Read and keep these steps: one round trip for them, one for their details. */
  async #readSteps(hashes: readonly string[]): Promise<StepPayload[]> {
    const { cas } = this.#store;
    await cas.prefetch(hashes);
    const steps: [string, StepPayload][] = [];
    for (const hash of hashes) steps.push([hash, await cas.getPayload<StepPayload>(hash, "step")]);
    await cas.prefetch(steps.map(([, step]) => step.detail));
    for (const [hash, step] of steps) await this.#add(hash, step);
    return steps.map(([, step]) => step);
  }

  /**
   * The uncached steps of the chains from `heads`, newest first, found by the refs the store
   * recorded (`Cas.reachableRefs`); just `heads` where the store does not record them. A step's
   * `prev` is taken to be its first ref to a step: reading the steps checks it, and a wrong
   * guess only leaves a gap that `fill` reads next round.
   */
  async #stepsAhead(heads: readonly string[]): Promise<string[]> {
    if (this.#store.cas.backend.reachableRefs === undefined) return [...heads];
    const refs = await this.#store.cas.reachableRefs(heads);
    const isStep = (hash: string) => STEP_TYPES.has(refs.get(hash)?.[0] ?? "");
    const ahead: string[] = [];
    const listed = new Set<string>();
    for (const head of heads) {
      let at: string | null = head;
      while (at !== null && !this.#steps.has(at) && !listed.has(at)) {
        listed.add(at);
        ahead.push(at);
        at = refs.get(at)?.slice(1).find(isStep) ?? null;
      }
    }
    return ahead;
  }

  /** The chain's rows from `head` back, newest first; stop iterating to stop reading. */
  async *rows(head: string): AsyncGenerator<StepRow> {
    let hash: string | null = head;
    while (hash !== null) {
      const index =
        this.#steps.indexOf(hash) ??
        (await this.#add(hash, await this.#store.cas.getPayload<StepPayload>(hash, "step")));
      if (!this.#used.has(index)) {
        this.#used.add(index);
        this.#usedCount++;
      }
      yield this.#steps.row(index);
      hash = this.#steps.prevOf(index);
    }
  }

  /**
   * Keep what was read for the next report. `whole`: this report followed every chain to its
   * start, so the steps it did not use belong to no thread any more.
   */
  save(whole: boolean): void {
    try {
      const stale = this.#fileRows + this.#added.length - this.#usedCount;
      // Every row, listed only when the whole file is written again (a warm report appends).
      const all = () => Array.from({ length: this.#steps.size }, (_, index) => index);
      if (whole && stale > this.#usedCount * (COMPACT_RATIO - 1) + COMPACT_MIN_ROWS) {
        this.#rewrite(all().filter((index) => this.#used.has(index)));
      } else if (this.#fileRows === -1) {
        this.#rewrite(all());
      } else if (this.#added.length > 0) {
        for (const part of linesOf(this.#steps, this.#added)) appendFileSync(this.#file, part);
      }
    } catch {
      // A cache that cannot be written costs time next run, never a wrong answer.
    }
  }

  /** The first step from `hash` back that is not cached, or null when none is needed. */
  #gapFrom(hash: string, sinceMs: number, walked: RowFlags): string | null {
    let at: string | null = hash;
    for (;;) {
      if (at === null) return null;
      const index = this.#steps.indexOf(at);
      if (index === undefined) return at;
      if (walked.has(index)) return null;
      walked.add(index);
      if (this.#steps.completedAtMsOf(index) < sinceMs) return null;
      at = this.#steps.prevOf(index);
    }
  }

  async #add(hash: string, step: StepPayload): Promise<number> {
    const known = this.#steps.indexOf(hash);
    if (known !== undefined) return known;
    const index = this.#steps.add({
      hash,
      prev: step.prev,
      startedAtMs: step.startedAtMs,
      completedAtMs: step.completedAtMs,
      role: step.role,
      agent: step.agent,
      model: await this.#model(step),
      usage: step.usage,
    });
    this.#added.push(index);
    return index;
  }

  #rewrite(rows: readonly number[]): void {
    const dir = join(this.#store.home, "cache");
    makePrivateDir(dir);
    // The cache before this one: a file per chain, as large as the store.
    rmSync(join(dir, "usage"), { recursive: true, force: true });
    writeFileAtomic(this.#file, cacheFile(this.#steps, rows));
  }

  async #model(step: StepPayload): Promise<string | null> {
    try {
      const detail = await this.#store.cas.getPayload<DetailPayload>(step.detail);
      const model = detail?.model;
      return typeof model === "string" && model !== "" ? model : null;
    } catch {
      // An adapter-defined detail that is not an object, or is gone: no model to group by.
      return null;
    }
  }
}

/** The whole cache file, a part at a time: its header, then the lines of `rows`. */
function* cacheFile(steps: StepTable, rows: readonly number[]): Generator<string> {
  yield `${JSON.stringify({ format: FORMAT })}\n`;
  yield* linesOf(steps, rows);
}

/** The lines of `rows`, a thousand to a part: a whole cache as one string is as big as the file. */
function* linesOf(steps: StepTable, rows: readonly number[]): Generator<string> {
  for (let from = 0; from < rows.length; from += 1000) {
    let part = "";
    for (const index of rows.slice(from, from + 1000)) {
      const { hash, startedAtMs, completedAtMs, role, agent, model, usage } = steps.row(index);
      const prev = steps.prevOf(index);
      part += `${JSON.stringify([hash, prev, startedAtMs, completedAtMs, role, agent, model, usage])}\n`;
    }
    yield part;
  }
}

/** The cached steps, or null when there is no file or it does not parse (then it is rebuilt). */
function load(file: string): StepTable | null {
  let lines: Generator<string, boolean>;
  let bytes: number;
  try {
    bytes = statSync(file).size;
    lines = linesIn(file);
  } catch {
    return null;
  }
  // A line is about 200 bytes: the table is sized once, and grows (by half) if it must.
  const steps = new StepTable(Math.ceil(bytes / 200));
  let header = true;
  for (let next = lines.next(); ; next = lines.next()) {
    // A file cut short inside a line, or with no header, is rebuilt.
    if (next.done) {
      if (header || !next.value) return null;
      return steps;
    }
    const line = next.value;
    if (line === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return null;
    }
    if (header) {
      if (!isPlainObject(value) || value.format !== FORMAT) return null;
      header = false;
      continue;
    }
    const step = stepOf(value);
    if (step === null) return null;
    steps.add(step);
  }
}

/**
 * The file's lines, read a megabyte at a time (the file is opened before the first); returns
 * whether the file ended with a newline.
 */
function linesIn(file: string): Generator<string, boolean> {
  const fd = openSync(file, "r");
  return (function* () {
    const buffer = Buffer.alloc(1 << 20);
    const decoder = new StringDecoder("utf8");
    let rest = "";
    try {
      for (;;) {
        const read = readSync(fd, buffer, 0, buffer.length, null);
        if (read === 0) break;
        const text = rest + decoder.write(buffer.subarray(0, read));
        const lines = text.split("\n");
        rest = lines.pop() ?? "";
        yield* lines;
      }
    } finally {
      closeSync(fd);
    }
    rest += decoder.end();
    if (rest !== "") yield rest;
    return rest === "";
  })();
}

function stepOf(value: unknown): NewStep | null {
  if (!Array.isArray(value) || value.length !== 8) return null;
  const [hash, prev, startedAtMs, completedAtMs, role, agent, model, usage] = value;
  const ok =
    typeof hash === "string" &&
    (prev === null || typeof prev === "string") &&
    typeof startedAtMs === "number" &&
    typeof completedAtMs === "number" &&
    typeof role === "string" &&
    typeof agent === "string" &&
    (model === null || typeof model === "string") &&
    isPlainObject(usage);
  if (!ok) return null;
  return { hash, prev, startedAtMs, completedAtMs, role, agent, model, usage: usage as Usage };
}
