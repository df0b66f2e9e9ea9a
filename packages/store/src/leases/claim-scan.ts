import { isUwfError } from "@united-workforce/util";
import type { AcquiredLease, ClaimQuery, LeaseStore, ThreadsStore } from "../api.js";
import { isRunnable } from "../threads/runnable.js";

/**
 * A claim where the store has no row lock to skip with (the filesystem): list the idle threads
 * nobody holds, try their leases oldest first, skip the ones another claimer took meanwhile, and
 * read the pointer again under the lease, so a thread that moved on before the lease was taken
 * is given back. The lease is the only arbiter: two claimers never hold one thread.
 */
export async function claimByScan(
  threads: ThreadsStore,
  leases: Pick<LeaseStore, "acquire">,
  query: ClaimQuery,
): Promise<AcquiredLease | null> {
  const { items } = await threads.list({
    statuses: ["idle"],
    ...(query.workflow === undefined ? {} : { workflow: query.workflow }),
  });
  // The list is newest first.
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.pointer === null || !isRunnable(item.pointer, query.workflow)) continue;
    let acquired: AcquiredLease;
    try {
      acquired = await leases.acquire(item.id, { command: query.command });
    } catch (error) {
      if (isUwfError(error) && error.code === "THREAD_BUSY") continue;
      throw error;
    }
    const now = await threads.get(item.id).catch(() => null);
    if (now !== null && isRunnable(now, query.workflow)) return acquired;
    await acquired.lease.release();
  }
  return null;
}
