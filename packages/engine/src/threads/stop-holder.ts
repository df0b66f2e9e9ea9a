import { isAlive, type LeaseInfo, type Store } from "@united-workforce/store";
import { KILL_GRACE, signalGroup, UwfError } from "@united-workforce/util";
import { delay, stopChildGroup } from "../processes/processes.js";
import { fanoutParentOf } from "./lease.js";

const POLL_MS = 50;
/** After SIGKILL a process is gone within milliseconds; waiting longer means it cannot die. */
const KILL_WAIT_MS = 5_000;

/**
 * End whatever holds a thread's lease: the agent's whole process group and the holder. The
 * holder gets SIGTERM first so it can release its lease; SIGKILL follows after a grace period.
 * Every wait is bounded: a holder that cannot be signalled (another user's process) or does not
 * die is an error that says so, never a hang. `beforeSignal` runs once a live holder is known to
 * be stoppable from here, just before it is signalled (`thread cancel` records the cancel there,
 * so the exec it stops can say why it stopped).
 */
export async function stopHolder(
  store: Store,
  thread: string,
  options: { graceMs?: number; beforeSignal?: () => Promise<void> } = {},
): Promise<{ pid: number } | null> {
  const graceMs = options.graceMs ?? KILL_GRACE.holder;
  const lease = await store.leases.read(thread);
  if (!lease) return null;
  const { holder, child } = lease.info;
  if (!lease.alive) {
    // A killed exec can leave its agent running: clear the stale lease and end that agent
    // (checked by identity), exactly as the next exec would.
    const stale = await store.leases.clearStale(thread);
    const orphan = stale?.child ?? null;
    if (orphan && isLocal(store, stale!) && isAlive(orphan)) {
      await stopChildGroup(orphan);
      return { pid: holder.pid };
    }
    return null;
  }
  // A fan-out child runs inside its parent's exec: signalling it would stop every child.
  const parent = fanoutParentOf(lease.info.command);
  if (parent !== null) {
    throw new UwfError(
      "THREAD_BUSY",
      `thread ${thread} is run by the fan-out of its parent ${parent} (pid ${holder.pid}); stopping it alone would stop every child of that run`,
      {
        hint: `stop the parent's run with \`uwf thread stop ${parent}\` (children that completed are kept), then act on this child`,
        details: { pid: holder.pid, parent },
      },
    );
  }
  if (!isLocal(store, lease.info)) {
    throw new UwfError(
      "THREAD_BUSY",
      `thread ${thread} runs on host ${holder.host} (pid ${holder.pid}): it cannot be stopped from here`,
      {
        hint: `stop it on ${holder.host}, or wait for it with \`uwf thread join ${thread}\``,
        details: { host: holder.host, pid: holder.pid },
      },
    );
  }
  await options.beforeSignal?.();
  // The holder first: its SIGTERM is then pending before the agent can die of its own, so the
  // holder sees an interrupt rather than a failed agent (which would suspend the thread).
  signalProcess(holder.pid, "SIGTERM", thread);
  if (child && isAlive(child)) signalGroup(child.pgid, "SIGTERM");
  const graceEnd = Date.now() + graceMs;
  while (isAlive(holder) && Date.now() < graceEnd) await delay(POLL_MS);
  if (isAlive(holder)) signalProcess(holder.pid, "SIGKILL", thread);
  if (child && isAlive(child)) signalGroup(child.pgid, "SIGKILL");
  const killEnd = Date.now() + KILL_WAIT_MS;
  while ((isAlive(holder) || (child !== null && isAlive(child))) && Date.now() < killEnd) {
    await delay(POLL_MS);
  }
  if (isAlive(holder)) {
    throw new UwfError("IO", `pid ${holder.pid} (thread ${thread}) did not end after SIGKILL`, {
      hint: "it may be stuck in the kernel (e.g. a hung mount); check it with `ps`",
      details: { pid: holder.pid },
    });
  }
  return { pid: holder.pid };
}

/** Wait until no live process holds the lease. Resolves false on timeout or abort. */
export async function waitForRelease(
  store: Store,
  thread: string,
  timeoutMs: number | null,
  signal: AbortSignal,
): Promise<boolean> {
  const deadline = timeoutMs === null ? Number.POSITIVE_INFINITY : Date.now() + timeoutMs;
  while (!signal.aborted) {
    const lease = await store.leases.read(thread);
    if (!lease?.alive) return true;
    if (Date.now() >= deadline) return false;
    await delay(100);
  }
  return false;
}

function isLocal(store: Store, info: LeaseInfo): boolean {
  return info.holder.host === store.host;
}

/** Signal a holder; a process that exists but is not ours is an error, not a silent no-op. */
function signalProcess(pid: number, signal: NodeJS.Signals, thread: string): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ESRCH") return;
    if (code === "EPERM") {
      throw new UwfError(
        "THREAD_BUSY",
        `thread ${thread} is run by pid ${pid}, which you may not signal (another user's process)`,
        {
          hint: "stop it as the user that started it, or wait with `uwf thread join`",
          details: { pid },
        },
      );
    }
    throw error;
  }
}
