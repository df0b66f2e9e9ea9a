import { isUwfError } from "@united-workforce/util";
import type { AcquiredLease, ClaimQuery, LeaseStore, ThreadsStore } from "../api.js";
import { isRunnable } from "../threads/runnable.js";

/** Idle threads read a page at a time, so a claim near the oldest reads few pointers. */
const CLAIM_PAGE = 32;

/**
 * A claim where the store has no row lock to skip with (the filesystem): list the idle threads
 * nobody holds oldest first, a page at a time, try their leases, skip the ones another claimer
 * took meanwhile, and read the pointer again under the lease, so a thread that moved on before
 * the lease was taken is given back. The lease is the only arbiter: two claimers never hold one
 * thread.
 */
export async function claimByScan(
  threads: ThreadsStore,
  leases: Pick<LeaseStore, "acquire">,
  query: ClaimQuery,
): Promise<AcquiredLease | null> {
  // Paged by a cursor, not an offset: a thread another worker claims meanwhile leaves the idle
  // list, and an offset would then skip one nobody tried.
  let after: string | undefined;
  for (;;) {
    const { items, more } = await threads.list({
      statuses: ["idle"],
      oldestFirst: true,
      limit: CLAIM_PAGE,
      ...(query.workflow === undefined ? {} : { workflow: query.workflow }),
      ...(after === undefined ? {} : { after }),
    });
    for (const item of items) {
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
    if (!more) return null;
    after = items.at(-1)?.id;
  }
}
