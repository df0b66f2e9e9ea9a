import type {
  ThreadPointer,
  UsageDimension,
  UsageDocument,
  UsageRow,
} from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { isoTime } from "@united-workforce/util";
import { StepRows } from "./chain-rows.js";
import { RowFlags } from "./step-table.js";
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
 * the range) or created after `untilMs` is skipped without reading its chain. Steps come from a
 * local cache of every step read before (chain-rows.ts), followed from each pointer's head, so
 * only steps added since the last report are read from the CAS (the step and its detail, for
 * the model), in batches of chains.
 */
export async function usageReport(store: Store, query: UsageQuery = {}): Promise<UsageDocument> {
  const by = [...(query.by ?? [])];
  const since = query.sinceMs ?? Number.NEGATIVE_INFINITY;
  const until = query.untilMs ?? Number.POSITIVE_INFINITY;
  const seen = new RowFlags();
  const groups = new Map<string, UsageRow>();
  let total = emptyTotal();

  // Just what grouping needs of each thread, the workflow's name shared: a pointer kept whole
  // costs a kilobyte or more, and a report reads every thread.
  const inRange: Pick<ThreadPointer, "thread" | "workflow" | "head">[] = [];
  const workflows = new Map<string, string>();
  for await (const { pointer } of store.threads.all()) {
    if (pointer === null || pointer.head === pointer.start) continue;
    // A thread not updated since the range began, or created after it ended, has none of its
    // own steps in it (a prefix it shares with an older thread is counted there).
    if (Date.parse(pointer.updatedAt) < since || Date.parse(pointer.createdAt) >= until) continue;
    const workflow = workflows.get(pointer.workflow) ?? pointer.workflow;
    workflows.set(workflow, workflow);
    inRange.push({ thread: pointer.thread, workflow, head: pointer.head });
  }
  const chains = StepRows.open(store);
  await chains.fill(
    inRange.map((pointer) => pointer.head),
    since,
  );
  for (const pointer of inRange) {
    for await (const step of chains.rows(pointer.head)) {
      // Everything before a counted step was counted with it.
      if (seen.has(step.index)) break;
      seen.add(step.index);
      if (step.completedAtMs < since) break;
      if (step.startedAtMs < since || step.startedAtMs >= until) continue;
      const values: Record<UsageDimension, string | null> = {
        thread: pointer.thread,
        workflow: pointer.workflow,
        role: step.role,
        agent: step.agent,
        model: step.model,
      };
      const key: Record<string, string | null> = {};
      for (const dimension of by) key[dimension] = values[dimension];
      const id = JSON.stringify(by.map((dimension) => key[dimension]));
      const row = groups.get(id) ?? { key, ...emptyTotal() };
      groups.set(id, { ...addToTotal(row, step.usage), key });
      total = addToTotal(total, step.usage);
    }
  }

  chains.save(!Number.isFinite(since) && !Number.isFinite(until));
  return {
    since: Number.isFinite(since) ? isoTime(since) : null,
    until: Number.isFinite(until) ? isoTime(until) : null,
    by,
    rows: by.length === 0 ? [] : [...groups.values()].sort(byCostThenKey(by)),
    total,
  };
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
