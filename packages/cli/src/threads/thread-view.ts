import type { ThreadPointer, ThreadStatus } from "@united-workforce/protocol";
import { readLock, threadLockPath } from "@united-workforce/store";

export interface LockState {
  pid: number;
  since: string;
}

/** The live holder of a thread's exec lock, or null when none holds it (a dead holder is none). */
export function liveLockHolder(home: string, thread: string): LockState | null {
  const lock = readLock(threadLockPath(home, thread));
  if (!lock?.alive) return null;
  return { pid: lock.info.holder.pid, since: lock.info.acquiredAt };
}

/** `running` is never stored: it is a pointer plus a live lock, so a crash cannot leave it. */
export function deriveStatus(pointer: ThreadPointer, holder: LockState | null): ThreadStatus {
  return holder ? "running" : pointer.status;
}
