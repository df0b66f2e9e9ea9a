import type { Lease, Store } from "@united-workforce/store";
import { stopChildGroup } from "../processes/processes.js";

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

/** The command a child's lease names while its parent's exec runs it. */
export function fanoutLeaseCommand(parent: string): string {
  return `${FANOUT_LEASE_PREFIX}${parent})`;
}

/** The parent a child's lease command names, or null when an exec of its own holds it. */
export function fanoutParentOf(command: string): string | null {
  return command.startsWith(FANOUT_LEASE_PREFIX)
    ? command.slice(FANOUT_LEASE_PREFIX.length, -1)
    : null;
}

const FANOUT_LEASE_PREFIX = "uwf thread exec (fan-out of ";
