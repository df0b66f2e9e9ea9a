import type {
  DetailPayload,
  StepPayload,
  UsageDimension,
  UsageDocument,
  UsageRow,
} from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { addToTotal, emptyTotal } from "./total.js";

export interface UsageQuery {
  /** Steps started at or after this instant (ms since the epoch); absent: from the beginning. */
  sinceMs?: number;
  /** Steps started strictly before this instant; absent: up to now. */
  untilMs?: number;
  /** Group by these, in this order; empty: one total. */
  by?: readonly UsageDimension[];
}

/**
 * Tokens and cost of every step started in a time range, grouped. Each step counts once: a
 * prefix that forks share belongs to the oldest thread holding it (the one that ran it).
 *
 * Cost: every pointer is read; a thread not updated since `sinceMs` (its last step ended before
 * the range) or created after `untilMs` is skipped without reading its chain; a chain is read
 * back from its head only until a step ended before the range or a step already counted.
 * The model comes from each step's detail node, read only when grouping by model.
 */
export async function usageReport(store: Store, query: UsageQuery = {}): Promise<UsageDocument> {
  const by = [...(query.by ?? [])];
  const since = query.sinceMs ?? Number.NEGATIVE_INFINITY;
  const until = query.untilMs ?? Number.POSITIVE_INFINITY;
  const needModel = by.includes("model");
  const seen = new Set<string>();
  const groups = new Map<string, UsageRow>();
  let total = emptyTotal();

  for await (const item of store.threads.all()) {
    const pointer = item.pointer;
    if (pointer === null || pointer.head === pointer.start) continue;
    if (Date.parse(pointer.updatedAt) < since || Date.parse(pointer.createdAt) >= until) {
      // A fork's shared prefix may still be counted by an older thread; nothing of this one's
      // own steps can be in range.
      continue;
    }
    let hash: string | null = pointer.head;
    while (hash !== null && !seen.has(hash)) {
      seen.add(hash);
      const step: StepPayload = await store.cas.getPayload<StepPayload>(hash, "step");
      if (step.completedAtMs < since) break;
      hash = step.prev;
      if (step.startedAtMs < since || step.startedAtMs >= until) continue;
      const values: Record<UsageDimension, string | null> = {
        thread: pointer.thread,
        workflow: pointer.workflow,
        role: step.role,
        agent: step.agent,
        model: needModel ? await modelOf(store, step) : null,
      };
      const key: Record<string, string | null> = {};
      for (const dimension of by) key[dimension] = values[dimension];
      const id = JSON.stringify(by.map((dimension) => key[dimension]));
      const row = groups.get(id) ?? { key, ...emptyTotal() };
      groups.set(id, { ...addToTotal(row, step.usage), key });
      total = addToTotal(total, step.usage);
    }
  }

  return {
    since: Number.isFinite(since) ? new Date(since).toISOString() : null,
    until: Number.isFinite(until) ? new Date(until).toISOString() : null,
    by,
    rows: by.length === 0 ? [] : [...groups.values()].sort(byCostThenKey(by)),
    total,
  };
}

/** The model a step's detail names; null when the adapter did not say. */
async function modelOf(store: Store, step: StepPayload): Promise<string | null> {
  try {
    const detail = await store.cas.getPayload<DetailPayload>(step.detail);
    return typeof detail?.model === "string" && detail.model !== "" ? detail.model : null;
  } catch {
    // An adapter-defined detail that is not an object: no model to group by.
    return null;
  }
}

/** Dearest first; rows whose cost is wholly unknown last; then by key. */
function byCostThenKey(by: readonly UsageDimension[]) {
  return (a: UsageRow, b: UsageRow): number => {
    const ca = a.costUsd ?? Number.NEGATIVE_INFINITY;
    const cb = b.costUsd ?? Number.NEGATIVE_INFINITY;
    if (ca !== cb) return cb - ca;
    for (const dimension of by) {
      const va = String(a.key[dimension] ?? "\uffff");
      const vb = String(b.key[dimension] ?? "\uffff");
      if (va !== vb) return va < vb ? -1 : 1;
    }
    return 0;
  };
}
