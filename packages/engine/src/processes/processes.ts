import { type ChildIdentity, isAlive, ownProcessGroup, pidExists } from "@united-workforce/store";
import { signalGroup } from "@united-workforce/util";

const STOP_WAIT_MS = 1_000;
const POLL_MS = 10;

/**
 * Kill the agent process group a gone lease holder left running, and wait until it is gone, so
 * two agents never work on one thread.
 *
 * The group is signalled when its leader is provably the recorded child (pid and start time
 * match), or when the leader pid no longer exists at all: Linux does not hand out a pid while a
 * process group with that id still exists, so any member left is an orphan of the recorded group.
 */
export async function stopChildGroup(child: ChildIdentity): Promise<void> {
  const { pgid } = child;
  if (!Number.isInteger(pgid) || pgid <= 1 || pgid === ownProcessGroup()) return;
  const leaderIsChild = child.pgid === child.pid;
  if (!isAlive(child) && !(leaderIsChild && !pidExists(pgid))) return;
  if (!signalGroup(pgid, "SIGKILL")) return;
  const deadline = Date.now() + STOP_WAIT_MS;
  while (isAlive(child) && Date.now() < deadline) await delay(POLL_MS);
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
