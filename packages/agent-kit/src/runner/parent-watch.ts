import { existsSync, readFileSync } from "node:fs";

/**
 * Call `abort` when the process that started this adapter is gone. If `uwf` is killed
 * mid-step, nobody will verify this step: the agent should stop spending tokens instead of
 * running until the next exec takes the lock over.
 *
 * Two tests, checked at once and then every `intervalMs`:
 * - an orphan is re-parented, so `process.ppid` changes from what it was when the watch began;
 * - `starter`, the pid uwf passes in `UWF_ADAPTER_PARENT_PID`, has ended. Without it, a uwf
 *   killed before this watch began (while Node was still starting) would go unnoticed: the
 *   first `process.ppid` seen would already be the new parent. It also holds when a wrapper
 *   (`npx`, a shell script) sits between uwf and the adapter.
 */
export function watchParent(
  starter: number | undefined,
  abort: (reason: Error) => void,
  intervalMs: number | null = 500,
): { stop(): void } {
  if (intervalMs === null) return { stop: () => {} };
  const parent = process.ppid;
  const orphaned = (): boolean =>
    process.ppid !== parent || (starter !== undefined && hasEnded(starter));
  const gone = (): void => abort(new Error("the process that started this adapter exited"));
  if (orphaned()) {
    gone();
    return { stop: () => {} };
  }
  const timer = setInterval(() => {
    if (orphaned()) {
      clearInterval(timer);
      gone();
    }
  }, intervalMs);
  // Watching must never keep an adapter alive on its own.
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** The pid in `UWF_ADAPTER_PARENT_PID`, when it names a process (not init, not garbage). */
export function starterPid(value: string | undefined): number | undefined {
  if (value === undefined || !/^[1-9][0-9]*$/.test(value)) return undefined;
  const pid = Number(value);
  return pid > 1 && Number.isSafeInteger(pid) ? pid : undefined;
}

/**
 * Whether a process has ended. A zombie has: it only waits for its parent to collect it, and
 * until then `kill(pid, 0)` still succeeds.
 */
function hasEnded(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch (error) {
    // Gone since kill() answered; or no /proc at all (macOS), where the answer stands.
    return (error as NodeJS.ErrnoException).code === "ENOENT" && existsSync("/proc/self/stat");
  }
}
