import type { Runner } from "@united-workforce/engine";
import { type ThreadRow, toRow } from "./threads.js";

/** An index older than this is read again even if the log said nothing (a pointer copied in). */
const MAX_AGE_MS = 60_000;

/**
 * The threads only a person moves on, for the top of every thread list. Finding them reads every
 * pointer on the filesystem backend (a status filter: ≈ 0.3 s at 10,000 threads), which the
 * unfiltered list otherwise never does; so the server reads them once and then keeps the set
 * from the live feed, which reads a thread's row after each of its events (every run, in any
 * process, logs them). Read afresh at most a minute after anything else.
 */
export class WaitingIndex {
  readonly #runner: Runner;
  #rows: Map<string, ThreadRow> | null = null;
  #builtAt = 0;
  /** Raised by each update, so a read that began before one does not overwrite it. */
  #generation = 0;

  constructor(runner: Runner) {
    this.#runner = runner;
  }

  /** Every thread waiting for a person, newest first. */
  async rows(): Promise<ThreadRow[]> {
    if (this.#rows === null || Date.now() - this.#builtAt > MAX_AGE_MS) await this.#build();
    return [...this.#rows!.values()].sort((a, b) => b.thread.localeCompare(a.thread));
  }

  /** A thread's row as the feed just read it. */
  update(row: ThreadRow): void {
    this.#generation++;
    if (this.#rows === null) return;
    if (row.waitsForAPerson) this.#rows.set(row.thread, row);
    else this.#rows.delete(row.thread);
  }

  async #build(): Promise<void> {
    const generation = this.#generation;
    const builtAt = Date.now();
    const { items } = await this.#runner.store.threads.list({ statuses: ["suspended"] });
    const rows = new Map<string, ThreadRow>();
    for (const row of items.map(toRow)) if (row.waitsForAPerson) rows.set(row.thread, row);
    this.#rows = rows;
    // Used for this request either way; kept only if no thread changed meanwhile.
    this.#builtAt = generation === this.#generation ? builtAt : 0;
  }
}
