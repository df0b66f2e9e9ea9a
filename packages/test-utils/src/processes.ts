import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { relative } from "node:path";

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

/** Poll until no process has its cwd inside `dir`; returns those still there at the deadline. */
export async function waitForNoProcessIn(dir: string, timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = processesIn(dir);
    if (left.length === 0 || Date.now() >= deadline) return left;
    await sleep(100);
  }
}

/** Live processes whose working directory is `dir` or inside it, as "pid command". */
export function processesIn(dir: string): string[] {
  // Without /proc nothing could be found, and the hung-model case would pass for nothing.
  if (!existsSync("/proc/self/cwd")) throw new Error("processesIn needs Linux's /proc");
  const found: string[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cwd = readlinkSync(`/proc/${name}/cwd`);
      const rel = relative(dir, cwd);
      if (rel.startsWith("..") || rel.startsWith("/")) continue;
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      found.push(`${name} ${cmd.slice(0, 200)}`);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}
