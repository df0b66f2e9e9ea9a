import { acquireLock, isAlive, readLock } from "@united-workforce/store";

const POLL_MS = 50;
/** How long a SIGKILLed agent may take to disappear before stop reports anyway. */
const KILL_WAIT_MS = 2000;

/**
 * End whatever holds a thread's lock: the adapter's whole process group and the holder. The
 * holder gets SIGTERM first so it can release its lock; SIGKILL follows after a grace period,
 * and the next exec takes the dead holder's lock over.
 */
export async function stopHolder(
  lockPath: string,
  graceMs = 5000,
): Promise<{ pid: number } | null> {
  const lock = readLock(lockPath);
  if (!lock) return null;
  const { holder, child } = lock.info;
  if (!lock.alive) {
    // A killed exec can leave its agent running. Taking the stale lock over ends that orphaned
    // process group (checked by identity), exactly as the next exec would.
    const orphan = child !== null && isAlive(child);
    acquireLock(lockPath, "uwf thread stop").release();
    return orphan ? { pid: holder.pid } : null;
  }
  // The holder first: its SIGTERM is then pending before the agent can die of its own, so the
  // holder sees an interrupt rather than a failed agent (which would suspend the thread).
  signal(holder.pid, "SIGTERM");
  if (child && isAlive(child)) signal(-child.pgid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!isAlive(holder)) break;
    await sleep(POLL_MS);
  }
  if (isAlive(holder)) signal(holder.pid, "SIGKILL");
  if (child && isAlive(child)) signal(-child.pgid, "SIGKILL");
  while (isAlive(holder)) await sleep(POLL_MS);
  // A user who was told "stopped" must not find the agent still at work a moment later.
  const childDeadline = Date.now() + KILL_WAIT_MS;
  while (child && isAlive(child) && Date.now() < childDeadline) await sleep(POLL_MS);
  return { pid: holder.pid };
}

/** Wait until no live process holds the lock. Resolves false on timeout. */
export async function waitForRelease(
  lockPath: string,
  timeoutMs: number | null,
  signal: AbortSignal,
): Promise<boolean> {
  const deadline = timeoutMs === null ? Number.POSITIVE_INFINITY : Date.now() + timeoutMs;
  while (!signal.aborted) {
    const lock = readLock(lockPath);
    if (!lock?.alive) return true;
    if (Date.now() >= deadline) return false;
    await sleep(100);
  }
  return false;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone.
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
