import { isAlive, ownProcessGroup, type ProcessIdentity, pidExists } from "./process-identity.js";
import { sleepSync } from "./sleep.js";

const STOP_WAIT_MS = 1_000;

/**
 * Kill the process group a dead lock holder left running, and wait until it is gone.
 *
 * The group is signalled when its leader is provably the recorded child (pid and start time
 * match), or when the leader pid no longer exists at all: Linux does not hand out a pid while a
 * process group with that id still exists, so any member left is an orphan of the recorded group.
 */
export function stopChildGroup(child: ProcessIdentity & { pgid: number }): void {
  const { pgid } = child;
  if (!Number.isInteger(pgid) || pgid <= 1 || pgid === ownProcessGroup()) return;
  const leaderIsChild = child.pgid === child.pid;
  if (!isAlive(child) && !(leaderIsChild && !pidExists(pgid))) return;
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // ESRCH: the group is already empty. EPERM: not ours to stop, and nothing else will be.
    return;
  }
  const deadline = Date.now() + STOP_WAIT_MS;
  while (isAlive(child) && Date.now() < deadline) sleepSync(10);
}
