import { ExitCode } from "@united-workforce/protocol";
import type { Lease } from "@united-workforce/store";
import { isUwfError, sleepUnlessAborted } from "@united-workforce/util";
import type { RunContext } from "../steps/context.js";
import { settleTakeover } from "../threads/lease.js";
import { execWithLease } from "./exec.js";
import type { RunRequest, RunResult } from "./types.js";

/** What a fleet worker's lease names as its command (`thread show`, THREAD_BUSY messages). */
export const NEXT_LEASE_COMMAND = "uwf thread exec --next";

/** The first pause of an idle worker; it doubles up to the worker's `pollMaxMs`. */
const FIRST_POLL_MS = 100;

export type NextRequest = RunRequest & {
  /** Claim only threads of this workflow. */
  workflow?: string | undefined;
};

/**
 * `thread exec --next`: claim the oldest runnable thread no live exec holds and run it, as
 * `thread exec <id>` would (up to `count` steps). Null when no thread is runnable.
 */
export async function execNext(run: RunContext, request: NextRequest): Promise<RunResult | null> {
  const lease = await claim(run, request);
  return lease === null ? null : execWithLease(run, lease.thread, request, null, lease);
}

/**
 * `thread exec --next --wait`: a fleet worker. Claims and runs threads one after another
 * (`ran` hears each run); with none runnable it waits, looking again after a pause that doubles
 * up to `pollMaxMs`. Ends when the run's signal is aborted: 0 when that came while it looked
 * for work, the interrupted run's exit code when a run was under way (its step ends as an
 * interrupted exec's does: agent stopped, head unchanged, lease released). A thread lost to
 * another exec is passed over; any other error ends the worker, which its supervisor starts
 * again.
 */
export async function workThreads(
  run: RunContext,
  request: NextRequest & { pollMaxMs: number },
  ran: (result: RunResult) => void,
): Promise<ExitCode> {
  const sleep = run.sleep ?? sleepUnlessAborted;
  let pauseMs = Math.min(FIRST_POLL_MS, request.pollMaxMs);
  let idle = false;
  while (!run.signal.aborted) {
    let lease: Lease | null;
    try {
      lease = await claim(run, request);
    } catch (error) {
      // Stopped while it looked for work (the store's wait was cut short): a clean stop.
      if (run.signal.aborted) break;
      if (lostToAnother(error)) continue;
      throw error;
    }
    if (lease === null) {
      if (!idle) {
        run.events.emit("exec.idle", {
          workflow: request.workflow ?? null,
          pollMs: request.pollMaxMs,
        });
        idle = true;
      }
      await sleep(pauseMs, run.signal);
      pauseMs = Math.min(pauseMs * 2, request.pollMaxMs);
      continue;
    }
    idle = false;
    pauseMs = Math.min(FIRST_POLL_MS, request.pollMaxMs);
    let result: RunResult;
    try {
      result = await execWithLease(run, lease.thread, request, null, lease);
    } catch (error) {
      if (lostToAnother(error) && !run.signal.aborted) continue;
      throw error;
    }
    ran(result);
    if (run.signal.aborted) return result.exitCode;
  }
  return ExitCode.ok;
}

/** Take the lease of the oldest runnable thread, and say so; null when none is runnable. */
async function claim(run: RunContext, request: NextRequest): Promise<Lease | null> {
  const acquired = await run.store.leases.claimNext({
    command: NEXT_LEASE_COMMAND,
    ...(request.workflow === undefined ? {} : { workflow: request.workflow }),
  });
  if (acquired === null) return null;
  const lease = await settleTakeover(acquired, run.events);
  try {
    const { workflow } = await run.store.threads.get(lease.thread);
    run.events.emit("exec.claim", { thread: lease.thread, workflow });
    return lease;
  } catch (error) {
    await lease.release();
    throw error;
  }
}

/** Another exec took the thread (by hand, or over a lease it judged stale). */
function lostToAnother(error: unknown): boolean {
  return isUwfError(error) && (error.code === "THREAD_BUSY" || error.code === "LEASE_LOST");
}
