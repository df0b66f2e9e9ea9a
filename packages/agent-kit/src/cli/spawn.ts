import { type ChildProcessByStdio, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { commandNotFound, findExecutable } from "@united-workforce/engine";
import { errorMessage, UwfError } from "@united-workforce/util";

/** How to run one agent CLI (`claude -p …`, `codex exec …`). */
export interface AgentCliRun {
  /** A name looked up on `env.PATH`, or a path (relative paths resolve against `cwd`). */
  command: string;
  args: string[];
  cwd: string;
  /** The child's whole environment: build it with `minimalEnv`, never pass the parent's. */
  env: Record<string, string | undefined>;
  /**
   * Text written to the child's stdin, which is then closed. Without it stdin is closed from
   * the start: agent CLIs wait for input (or warn) while their stdin is an open pipe.
   */
  stdin?: string;
  /** Kill the whole process group after this long; null or absent: no limit. */
  timeoutMs?: number | null;
  signal?: AbortSignal;
  /** Each stdout line, without its line end, as soon as it is complete. */
  onStdoutLine?: (line: string) => void;
  /** Each stderr line, without its line end. */
  onStderrLine?: (line: string) => void;
  /** Called once the child exists, with its pid (= its process group id). */
  onSpawn?: (pid: number) => void;
  /**
   * Between SIGTERM and SIGKILL of the group on timeout or abort (default 1 s: uwf gives an
   * adapter 2 s between its own SIGTERM and SIGKILL, and the CLI must be gone before that).
   */
  killGraceMs?: number;
  /** Shown when the command is not found, e.g. how to install the CLI. */
  notFoundHint?: string;
}

export interface AgentCliOutcome {
  /** The exit code, or null when the CLI was ended by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** The last few KB of stderr, for error messages. */
  stderrTail: string;
  pid: number;
}

const STDERR_TAIL_CHARS = 4000;
const DEFAULT_KILL_GRACE_MS = 1000;
/** A line longer than this is passed on in pieces rather than held without bound. */
const MAX_LINE_CHARS = 32 * 1024 * 1024;
/** setTimeout fires at once for a longer delay: longer timeouts wait this long. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The command's full path on `PATH` (or relative to `cwd`), or null; no shell involved. */
export function findOnPath(
  command: string,
  env: Record<string, string | undefined>,
  cwd: string,
): string | null {
  return findExecutable(command, env.PATH ?? "", cwd);
}

/**
 * Run an agent CLI with no shell, in its own process group, and wait for it to end. A timeout
 * or an abort ends the whole group (SIGTERM, then SIGKILL after a grace), so tools the CLI
 * started (a shell, a language server) die with it; so does the CLI's normal exit.
 */
export async function spawnAgentCli(run: AgentCliRun): Promise<AgentCliOutcome> {
  const resolved = findOnPath(run.command, run.env, run.cwd);
  if (!resolved) {
    throw new UwfError(
      "AGENT_FAILED",
      commandNotFound(run.command, run.cwd),
      run.notFoundHint ? { hint: run.notFoundHint } : {},
    );
  }
  run.signal?.throwIfAborted();

  let child: ChildProcessByStdio<Writable | null, Readable, Readable>;
  try {
    child = spawn(resolved, run.args, {
      cwd: run.cwd,
      env: definedOnly(run.env) as NodeJS.ProcessEnv,
      detached: true,
      shell: false,
      stdio: [run.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    }) as ChildProcessByStdio<Writable | null, Readable, Readable>;
  } catch (error) {
    throw new UwfError("AGENT_FAILED", `could not start "${run.command}": ${errorMessage(error)}`);
  }
  const pid = child.pid ?? 0;
  const killGroup = (signal: NodeJS.Signals): void => {
    if (!pid) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is already gone.
    }
  };
  if (pid) run.onSpawn?.(pid);

  if (child.stdin) {
    // A CLI that exits without reading its input closes the pipe: not an error of ours.
    child.stdin.on("error", () => {});
    child.stdin.end(run.stdin);
  }

  return await new Promise<AgentCliOutcome>((resolvePromise, reject) => {
    const grace = run.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    const stdout = lineSplitter((line) => run.onStdoutLine?.(line));
    let stderrTail = "";
    const stderr = lineSplitter((line) => run.onStderrLine?.(line));
    let timedOut = false;
    let aborted = false;
    let exited: { exitCode: number | null; signal: NodeJS.Signals | null } | null = null;
    let killTimer: NodeJS.Timeout | undefined;
    let timeoutTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    let settled = false;

    const terminate = (): void => {
      killGroup("SIGTERM");
      killTimer ??= setTimeout(() => killGroup("SIGKILL"), grace);
    };
    const onAbort = (): void => {
      aborted = true;
      terminate();
    };
    const cleanup = (): void => {
      clearTimeout(timeoutTimer);
      clearTimeout(killTimer);
      clearTimeout(drainTimer);
      run.signal?.removeEventListener("abort", onAbort);
    };

    if (run.timeoutMs !== undefined && run.timeoutMs !== null) {
      timeoutTimer = setTimeout(
        () => {
          timedOut = true;
          terminate();
        },
        Math.min(Math.max(0, run.timeoutMs), MAX_TIMER_MS),
      );
    }
    if (run.signal?.aborted) onAbort();
    run.signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout.on("data", (chunk: Buffer) => stdout.write(chunk));
    child.stderr.on("data", (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
      stderr.write(chunk);
    });

    const finish = (): void => {
      if (!exited || settled) return;
      settled = true;
      cleanup();
      stdout.end();
      stderr.end();
      resolvePromise({ ...exited, timedOut, aborted, stderrTail, pid });
    };
    child.once("error", (error) => {
      if (settled) return;
      settled = true;
      cleanup();
      killGroup("SIGKILL");
      reject(
        new UwfError("AGENT_FAILED", `could not start "${run.command}": ${errorMessage(error)}`),
      );
    });
    child.once("exit", (exitCode, signal) => {
      exited = { exitCode, signal };
      // The CLI's run is over: processes it left in its group must not outlive it, nor keep
      // its pipes open and this adapter waiting.
      killGroup("SIGKILL");
      drainTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, grace);
    });
    child.once("close", finish);
  });
}

/** Bytes in, whole lines out (a multi-byte character split across reads stays whole). */
function lineSplitter(onLine: (line: string) => void): {
  write(chunk: Buffer): void;
  end(): void;
} {
  const decoder = new StringDecoder("utf8");
  let pending = "";
  const take = (text: string): void => {
    pending += text;
    let start = 0;
    for (let at = pending.indexOf("\n"); at !== -1; at = pending.indexOf("\n", start)) {
      onLine(stripCr(pending.slice(start, at)));
      start = at + 1;
    }
    pending = pending.slice(start);
    if (pending.length > MAX_LINE_CHARS) {
      onLine(pending);
      pending = "";
    }
  };
  return {
    write: (chunk) => take(decoder.write(chunk)),
    end: () => {
      take(decoder.end());
      if (pending !== "") onLine(stripCr(pending));
      pending = "";
    },
  };
}

function stripCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  return out;
}
