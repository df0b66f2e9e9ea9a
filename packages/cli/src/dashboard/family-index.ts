import type { Store, ThreadListItem, ThreadPage, ThreadQuery } from "@united-workforce/store";

/** An index older than this is rebuilt even if the log said nothing (a thread copied in). */
const MAX_AGE_MS = 60_000;
/** Events after which a thread may have joined a family. */
export const FAMILY_EVENTS = new Set(["thread.start", "step.fork", "store.migrate"]);

/**
 * Which threads share a StartNode, for the fork tree of every thread page. On the filesystem
 * `threads.list({ start })` reads every pointer (≈ 0.2 s at 10,000 threads on a loaded
 * machine); the dashboard asks it on each thread page, so it keeps the start → threads map from
 * one such read and reads afresh only the family's own pointers. Threads join families only by
 * `thread start` and `step fork`, which every process logs: the live feed marks the index stale
 * on those events, and it is rebuilt at most a minute after anything else. PostgreSQL indexes
 * the start column itself, so there the store is asked directly.
 */
export class FamilyIndex {
  readonly #store: Store;
  #byStart: Map<string, string[]> | null = null;
  #builtAt = 0;
  /** Raised by each invalidation, so a build that began before one does not count. */
  #generation = 0;

  constructor(store: Store) {
    this.#store = store;
  }

  invalidate(): void {
    this.#generation++;
    this.#byStart = null;
  }

  /** The family of `start`, newest first like `threads.list`, each pointer read now. */
  async family(start: string): Promise<ThreadPage> {
    if (this.#byStart === null || Date.now() - this.#builtAt > MAX_AGE_MS) await this.#build();
    const ids = this.#byStart!.get(start) ?? [];
    const items: ThreadListItem[] = [];
    for (const id of ids) {
      try {
        const pointer = await this.#store.threads.get(id);
        const lease = await this.#store.leases.read(id);
        items.push({ id, pointer, problem: null, running: lease?.alive === true });
      } catch {
        // Gone or unreadable since the index was built: not part of the tree.
      }
    }
    return { items, more: false };
  }

  /** The store as the engine's `forkTree` should see it: its family query answered here. */
  store(): Store {
    const s = this.#store;
    if (s.kind !== "fs") return s;
    const t = s.threads;
    const onlyStart = (q: ThreadQuery | undefined): q is ThreadQuery & { start: string } =>
      q?.start !== undefined &&
      Object.entries(q).every(([key, value]) => key === "start" || value === undefined);
    return {
      kind: s.kind,
      location: s.location,
      home: s.home,
      host: s.host,
      cas: s.cas,
      registry: s.registry,
      leases: s.leases,
      threads: {
        get: (id) => t.get(id),
        exists: (id) => t.exists(id),
        create: (pointer) => t.create(pointer),
        swap: (next, rev) => t.swap(next, rev),
        list: (q) => (onlyStart(q) ? this.family(q.start) : t.list(q)),
        all: () => t.all(),
        reindex: () => t.reindex(),
        locate: (id) => t.locate(id),
        withPrefix: (prefix, limit) => t.withPrefix(prefix, limit),
      },
      gc: (options) => s.gc(options),
      verify: () => s.verify(),
      close: () => s.close(),
    };
  }

  async #build(): Promise<void> {
    const byStart = new Map<string, string[]>();
    const builtAt = Date.now();
    const generation = this.#generation;
    for (const item of (await this.#store.threads.list({})).items) {
      const start = item.pointer?.start;
      if (start === undefined) continue;
      byStart.set(start, [...(byStart.get(start) ?? []), item.id]);
    }
    // Used for this request either way; kept only if nothing joined a family meanwhile.
    this.#byStart = byStart;
    this.#builtAt = generation === this.#generation ? builtAt : 0;
  }
}
