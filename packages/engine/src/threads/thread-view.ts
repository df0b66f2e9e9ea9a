import type { ThreadPointer, ThreadStatus } from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";

export interface HolderState {
  pid: number;
  host: string;
  since: string;
}

/** The live holder of a thread's exec lease, or null when none holds it (a gone holder is none). */
export async function liveHolder(store: Store, thread: string): Promise<HolderState | null> {
  const lease = await store.leases.read(thread);
  if (!lease?.alive) return null;
  const { holder, acquiredAt } = lease.info;
  return { pid: holder.pid, host: holder.host, since: acquiredAt };
}

/** `running` is never stored: it is a pointer plus a live lease, so a crash cannot leave it. */
export function deriveStatus(pointer: ThreadPointer, holder: HolderState | null): ThreadStatus {
  return holder ? "running" : pointer.status;
}
