import { readFileSync } from "node:fs";

/**
 * Whether a process has ended. A zombie counts as ended: it has exited and only waits for its
 * parent to collect it (in containers, PID 1 may never do that).
 */
export function isProcessGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Wait until the process has ended or `timeoutMs` passes; true when it ended. */
export async function waitUntilGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!isProcessGone(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(50);
  }
  return true;
}
