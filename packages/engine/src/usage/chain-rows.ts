import { appendFileSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
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

/** What `uwf usage` needs of one step. */
export interface StepRow {
  hash: string;
  startedAtMs: number;
  completedAtMs: number;
  role: string;
  agent: string;
  /** The model its detail names; null when the adapter did not say. */
  model: string | null;
  usage: Usage;
}

interface CachedStep {
  row: StepRow;
  prev: string | null;
}

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
  readonly #steps: Map<string, CachedStep>;
  /** Lines in the file; -1 when there is none to append to (missing, or rebuilt). */
  readonly #fileRows: number;
  readonly #added: CachedStep[] = [];
  readonly #used = new Set<string>();

  private constructor(store: Store, file: string, loaded: Map<string, CachedStep> | null) {
    this.#store = store;
    this.#file = file;
    this.#steps = loaded ?? new Map();
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
    const walked = new Set<string>();
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
      let cached = this.#steps.get(hash);
      if (cached === undefined) {
        await this.#add(hash, await this.#store.cas.getPayload<StepPayload>(hash, "step"));
        cached = this.#steps.get(hash)!;
      }
      this.#used.add(hash);
      yield cached.row;
      hash = cached.prev;
    }
  }

  /**
   * Keep what was read for the next report. `whole`: this report followed every chain to its
   * start, so the steps it did not use belong to no thread any more.
   */
  save(whole: boolean): void {
    try {
      const stale = this.#fileRows + this.#added.length - this.#used.size;
      if (whole && stale > this.#used.size * (COMPACT_RATIO - 1) + COMPACT_MIN_ROWS) {
        this.#rewrite([...this.#used].map((hash) => this.#steps.get(hash)!));
      } else if (this.#fileRows === -1) {
        this.#rewrite([...this.#steps.values()]);
      } else if (this.#added.length > 0) {
        appendFileSync(this.#file, lines(this.#added));
      }
    } catch {
      // A cache that cannot be written costs time next run, never a wrong answer.
    }
  }

  /** The first step from `hash` back that is not cached, or null when none is needed. */
  #gapFrom(hash: string, sinceMs: number, walked: Set<string>): string | null {
    let at: string | null = hash;
    while (at !== null && !walked.has(at)) {
      walked.add(at);
      const cached = this.#steps.get(at);
      if (cached === undefined) return at;
      if (cached.row.completedAtMs < sinceMs) return null;
      at = cached.prev;
    }
    return null;
  }

  async #add(hash: string, step: StepPayload): Promise<void> {
    if (this.#steps.has(hash)) return;
    const cached: CachedStep = {
      prev: step.prev,
      row: {
        hash,
        startedAtMs: step.startedAtMs,
        completedAtMs: step.completedAtMs,
        role: step.role,
        agent: step.agent,
        model: await this.#model(step),
        usage: step.usage,
      },
    };
    this.#steps.set(hash, cached);
    this.#added.push(cached);
  }

  #rewrite(steps: readonly CachedStep[]): void {
    const dir = join(this.#store.home, "cache");
    makePrivateDir(dir);
    // The cache before this one: a file per chain, as large as the store.
    rmSync(join(dir, "usage"), { recursive: true, force: true });
    writeFileAtomic(this.#file, `${JSON.stringify({ format: FORMAT })}\n${lines(steps)}`);
  }

  async #model(step: StepPayload): Promise<string | null> {
    try {
      const detail = await this.#store.cas.getPayload<DetailPayload>(step.detail);
      return typeof detail?.model === "string" && detail.model !== "" ? detail.model : null;
    } catch {
      // An adapter-defined detail that is not an object, or is gone: no model to group by.
      return null;
    }
  }
}

function lines(steps: readonly CachedStep[]): string {
  return steps
    .map(({ row, prev }) =>
      JSON.stringify([
        row.hash,
        prev,
        row.startedAtMs,
        row.completedAtMs,
        row.role,
        row.agent,
        row.model,
        row.usage,
      ]),
    )
    .map((line) => `${line}\n`)
    .join("");
}

/** The cached steps, or null when there is no file or it does not parse (then it is rebuilt). */
function load(file: string): Map<string, CachedStep> | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const steps = new Map<string, CachedStep>();
  let header = true;
  for (const line of text.split("\n")) {
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
    const cached = stepOf(value);
    if (cached === null) return null;
    steps.set(cached.row.hash, cached);
  }
  // A file cut short inside a line, or with no header, is rebuilt.
  return header || !text.endsWith("\n") ? null : steps;
}

function stepOf(value: unknown): CachedStep | null {
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
  return {
    prev,
    row: { hash, startedAtMs, completedAtMs, role, agent, model, usage: usage as Usage },
  };
}
