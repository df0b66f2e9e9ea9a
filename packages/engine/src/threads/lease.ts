import { type AcquiredLease, isAlive, type Lease, type Store } from "@united-workforce/store";
import type { EventStream } from "@united-workforce/util";
import { stopChildGroup } from "../processes/processes.js";

/**
 * Take a thread's exec lease (THREAD_BUSY when a live holder has it). When the lease replaced a
 * gone holder on this machine, the agent that holder left running is stopped first: the store
 * only records processes, the engine ends them. A takeover is said (`thread.takeover`), so a
 * lock an exec left behind (killed, or ended by a second Ctrl-C) never changes hands silently.
 */
export async function takeThread(
  store: Store,
  thread: string,
  command: string,
  events?: EventStream,
): Promise<Lease> {
  return settleTakeover(await store.leases.acquire(thread, { command }), events);
}

/**
 * A lease just taken (by `acquire` or a fleet worker's claim): when it replaced a gone holder,
 * stop the agent that holder left running on this machine and say the takeover.
 */
export async function settleTakeover(
  { lease, replaced }: AcquiredLease,
  events?: EventStream,
): Promise<Lease> {
  if (replaced === null) return lease;
  const thread = lease.thread;
  const local = replaced.holder.host === lease.info().holder.host;
  const orphan = local && replaced.child !== null && isAlive(replaced.child);
  if (local && replaced.child) await stopChildGroup(replaced.child);
  events?.emit("thread.takeover", {
    thread,
    holder: replaced.holder.pid,
    host: replaced.holder.host,
    command: replaced.command,
    agentStopped: orphan,
  });
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
