import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { DetailPayload, StepPayload, Usage } from "@united-workforce/protocol";
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

/** Bump when StepRow changes: older files are then ignored. */
const FORMAT = 1;

/**
 * The steps of a chain, newest first, with a local cache: `<home>/cache/usage/<head>.json`
 * holds the rows of the chain ending at that step. Nodes are immutable, so a step hash names
 * the same chain forever and a file never goes stale; a chain that grew is read back only to
 * the step of its last file. An unreadable file is ignored (and rewritten); deleting the folder
 * is always safe. Without it, `uwf usage` read two nodes per step each time (measured in
 * docs/decisions/usage-reports.md).
 */
export class ChainRows {
  readonly #dir: string;
  #dirReady = false;

  constructor(
    private readonly store: Store,
    /** Heads of threads right now: their files are kept when a longer chain supersedes them. */
    private readonly heads: ReadonlySet<string>,
  ) {
    this.#dir = join(store.home, "cache", "usage");
  }

  /**
   * The chain's rows from `head` back. Steps that ended before `sinceMs` are not needed: when no
   * file holds them, the walk stops there (and what it read is not cached, being partial).
   */
  async rows(head: string, sinceMs = Number.NEGATIVE_INFINITY): Promise<StepRow[]> {
    const fresh: StepRow[] = [];
    let hash: string | null = head;
    let cached: StepRow[] = [];
    while (hash !== null) {
      const file = this.#read(hash);
      if (file !== null) {
        cached = file;
        break;
      }
      const step: StepPayload = await this.store.cas.getPayload<StepPayload>(hash, "step");
      if (step.completedAtMs < sinceMs) return fresh;
      fresh.push({
        hash,
        startedAtMs: step.startedAtMs,
        completedAtMs: step.completedAtMs,
        role: step.role,
        agent: step.agent,
        model: await this.#model(step),
        usage: step.usage,
      });
      hash = step.prev;
    }
    const rows = fresh.length === 0 ? cached : [...fresh, ...cached];
    if (fresh.length > 0) {
      this.#write(head, rows);
      // The shorter chain's file is superseded, unless a thread still ends there.
      if (hash !== null && !this.heads.has(hash)) rmSync(this.#file(hash), { force: true });
    }
    return rows;
  }

  #file(hash: string): string {
    return join(this.#dir, `${hash}.json`);
  }

  #read(hash: string): StepRow[] | null {
    let text: string;
    try {
      text = readFileSync(this.#file(hash), "utf8");
    } catch {
      return null;
    }
    try {
      const value = JSON.parse(text) as { format?: unknown; rows?: unknown };
      if (value.format !== FORMAT || !Array.isArray(value.rows)) return null;
      const rows = value.rows as StepRow[];
      return rows[0]?.hash === hash ? rows : null;
    } catch {
      return null;
    }
  }

  #write(head: string, rows: readonly StepRow[]): void {
    try {
      if (!this.#dirReady) {
        makePrivateDir(this.#dir);
        this.#dirReady = true;
      }
      writeFileAtomic(this.#file(head), `${JSON.stringify({ format: FORMAT, rows })}\n`);
    } catch {
      // A cache that cannot be written costs time next run, never a wrong answer.
    }
  }

  async #model(step: StepPayload): Promise<string | null> {
    try {
      const detail = await this.store.cas.getPayload<DetailPayload>(step.detail);
      return typeof detail?.model === "string" && detail.model !== "" ? detail.model : null;
    } catch {
      // An adapter-defined detail that is not an object, or is gone: no model to group by.
      return null;
    }
  }
}
