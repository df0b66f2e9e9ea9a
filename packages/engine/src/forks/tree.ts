import type {
  StepPayload,
  ThreadPointer,
  ThreadTreeDocument,
  ThreadTreeEntry,
} from "@united-workforce/protocol";
import type { Store, ThreadListItem } from "@united-workforce/store";

/** What is known of a step once one chain through it was walked. */
interface KnownStep {
  /** 1 for a thread's first step. */
  number: number;
  role: string;
  /** The oldest thread of the family whose chain holds the step: the one that ran it. */
  owner: string;
}

/**
 * A thread's fork family (DESIGN §7 `step fork`): every thread whose chain begins at the same
 * StartNode, each placed under the thread that ran the step it was forked at.
 *
 * Cost: one store query for the family (an indexed column in PostgreSQL, a read of the pointers
 * on the filesystem), then CAS reads only as far as needed to place each fork step: a thread's
 * chain is walked only when a younger fork needs a step no older thread has shown yet, and a
 * walk stops at the first step already known. 1,000 forks of one thread read that thread's
 * chain once and none of the forks' own steps.
 */
export async function forkTree(store: Store, threadId: string): Promise<ThreadTreeDocument> {
  const asked = await store.threads.get(threadId);
  const family = (await familyOf(store, asked.start)).map((item) => ({
    item,
    pointer: item.pointer!,
  }));
  const known = new Map<string, KnownStep>();
  // Threads are walked lazily, oldest first and never skipping one, so the first thread to
  // claim a step is the oldest holding it: the one that ran it.
  let walked = 0;
  const locate = async (hash: string, before: number): Promise<KnownStep | undefined> => {
    while (!known.has(hash) && walked < before) {
      const { pointer } = family[walked]!;
      await walkNew(store, pointer.thread, headOf(pointer), known);
      walked++;
    }
    return known.get(hash);
  };
  const threads: ThreadTreeEntry[] = [];
  for (const [index, { item, pointer }] of family.entries()) {
    let fork: KnownStep | undefined;
    if (pointer.forkedFrom !== undefined) {
      fork = await locate(pointer.forkedFrom, index);
      if (fork === undefined) {
        // No older thread holds it: the thread it came from is gone; this one holds it.
        await walkNew(store, pointer.thread, pointer.forkedFrom, known);
        fork = known.get(pointer.forkedFrom);
      }
    }
    const parent = fork !== undefined && fork.owner !== pointer.thread ? fork.owner : null;
    threads.push({
      thread: pointer.thread,
      title: pointer.title ?? null,
      workflow: pointer.workflow,
      status: item.running ? "running" : pointer.status,
      head: pointer.head,
      steps: pointer.steps,
      createdAt: pointer.createdAt,
      forkedFrom: pointer.forkedFrom ?? null,
      forkStep: fork?.number ?? null,
      forkRole: fork?.role ?? null,
      parent,
    });
  }
  return { thread: asked.thread, start: asked.start, threads };
}

function headOf(pointer: ThreadPointer): string | null {
  return pointer.head === pointer.start ? null : pointer.head;
}

/** The family's readable threads, oldest first (ids are ULIDs). */
async function familyOf(store: Store, start: string): Promise<ThreadListItem[]> {
  const page = await store.threads.list({ start });
  return page.items.filter((item) => item.pointer !== null).reverse();
}

/**
 * Record the steps of `thread`'s chain that no older thread holds, numbering them from the
 * step where the walk met known ground (or from the StartNode).
 */
async function walkNew(
  store: Store,
  thread: string,
  head: string | null,
  known: Map<string, KnownStep>,
): Promise<void> {
  const fresh: { hash: string; step: StepPayload }[] = [];
  let hash = head;
  while (hash !== null && !known.has(hash)) {
    const step = await store.cas.getPayload<StepPayload>(hash, "step");
    fresh.push({ hash, step });
    hash = step.prev;
  }
  let number = hash === null ? 0 : known.get(hash)!.number;
  for (let i = fresh.length - 1; i >= 0; i--) {
    const { hash: h, step } = fresh[i]!;
    number += 1;
    known.set(h, { number, role: step.role, owner: thread });
  }
}
