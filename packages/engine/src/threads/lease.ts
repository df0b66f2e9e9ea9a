import type { Lease, Store } from "@united-workforce/store";
import { stopChildGroup } from "./processes.js";

/**
 * Take a thread's exec lease (THREAD_BUSY when a live holder has it). When the lease replaced a
 * gone holder on this machine, the agent that holder left running is stopped first: the store
 * only records processes, the engine ends them.
 */
export async function takeThread(store: Store, thread: string, command: string): Promise<Lease> {
  const { lease, replaced } = await store.leases.acquire(thread, { command });
  if (replaced?.child && replaced.holder.host === lease.info().holder.host) {
    await stopChildGroup(replaced.child);
  }
  return lease;
}
