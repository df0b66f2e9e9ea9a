import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { UwfError } from "@united-workforce/util";

export interface AdapterInvocation {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  timeoutMs: number | null;
  signal: AbortSignal;
  /** Adapter stderr, streamed as it arrives. */
  onStderr(chunk: string): void;
  /** Called once the child exists, so the lock can record its process group. */
  onSpawn(pid: number): void;
}

export interface AdapterOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** The last non-empty stdout line: the protocol's result line. */
  lastLine: string;
  stdoutBytes: number;
  stderrTail: string;
}

const STDERR_TAIL = 4000;
const LAST_LINE_LIMIT = 64 * 1024;
const KILL_GRACE_MS = 2000;

/**
 * Run an adapter with no shell, in its own process group, and wait for it. Only the last
 * stdout line is kept (bounded), so an adapter printing 50 MB costs no memory.
 */
export async function runAdapter(invocation: AdapterInvocation): Promise<AdapterOutcome> {
  checkCwd(invocation.cwd);
  const resolved = findExecutable(invocation.command, invocation.env.PATH ?? "", invocation.cwd);
  if (!resolved) {
    throw new UwfError(
      "AGENT_FAILED",
      `"${invocation.command}" not found in PATH. Install it or check your PATH config. Run: which ${invocation.command}`,
      { hint: "Fix the agent command in config.yaml (`uwf config get agents`) or pass --agent." },
    );
  }

  const child = spawn(resolved, invocation.args, {
    cwd: invocation.cwd,
    env: invocation.env as NodeJS.ProcessEnv,
    detached: true,
    shell: false,
    stdio: ["ignore", "pipe", "pipe"],
  });

  return await new Promise<AdapterOutcome>((resolvePromise, reject) => {
    let pending = "";
    let lastLine = "";
    let stdoutBytes = 0;
    let stderrTail = "";
    let timedOut = false;
    let aborted = false;
    let killTimer: NodeJS.Timeout | undefined;
    let timeoutTimer: NodeJS.Timeout | undefined;

    const killGroup = (sig: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        // The group is already gone.
      }
    };
    const terminate = (): void => {
      killGroup("SIGTERM");
      killTimer ??= setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS);
    };
    const onAbort = (): void => {
      aborted = true;
      terminate();
    };

    child.once("spawn", () => {
      if (child.pid !== undefined) invocation.onSpawn(child.pid);
      if (invocation.timeoutMs !== null) {
        timeoutTimer = setTimeout(() => {
          timedOut = true;
          terminate();
        }, invocation.timeoutMs);
      }
    });
    if (invocation.signal.aborted) onAbort();
    invocation.signal.addEventListener("abort", onAbort, { once: true });

    child.stdout.on("data", (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      pending += chunk.toString("utf8");
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (let i = lines.length - 1; i >= 0; i--) {
        if (lines[i]!.trim() !== "") {
          lastLine = lines[i]!.slice(0, LAST_LINE_LIMIT);
          break;
        }
      }
      if (pending.length > LAST_LINE_LIMIT) pending = pending.slice(-LAST_LINE_LIMIT);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      stderrTail = (stderrTail + text).slice(-STDERR_TAIL);
      invocation.onStderr(text);
    });
    child.once("error", (error) => {
      clearTimeout(timeoutTimer);
      clearTimeout(killTimer);
      invocation.signal.removeEventListener("abort", onAbort);
      reject(
        new UwfError("AGENT_FAILED", `could not start "${invocation.command}": ${error.message}`),
      );
    });
    child.once("close", (exitCode, signal) => {
      clearTimeout(timeoutTimer);
      invocation.signal.removeEventListener("abort", onAbort);
      // The adapter may have left children in its group: they must not outlive the step.
      killGroup("SIGKILL");
      clearTimeout(killTimer);
      if (pending.trim() !== "") lastLine = pending.slice(0, LAST_LINE_LIMIT);
      resolvePromise({
        exitCode,
        signal,
        timedOut,
        aborted,
        lastLine: lastLine.trim(),
        stdoutBytes,
        stderrTail,
      });
    });
  });
}

function checkCwd(cwd: string): void {
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) {
    throw new UwfError(
      "AGENT_FAILED",
      `working directory "${cwd}" does not exist or is not a directory`,
      {
        hint: "Create it, or fix the edge's `location` / the thread's --cwd, then run `uwf thread resume <thread>`.",
      },
    );
  }
}

/** Resolve a command the way execvp would, without a shell. */
export function findExecutable(command: string, pathEnv: string, cwd: string): string | null {
  if (command.includes("/")) {
    const full = isAbsolute(command) ? command : join(cwd, command);
    return isExecutableFile(full) ? full : null;
  }
  for (const dir of pathEnv.split(delimiter)) {
    if (!dir) continue;
    const full = join(dir, command);
    if (isExecutableFile(full)) return full;
  }
  return null;
}

function isExecutableFile(path: string): boolean {
  try {
    const stat = statSync(path);
    return stat.isFile() && (stat.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}
