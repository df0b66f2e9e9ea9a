import type { Writable } from "node:stream";
import { findExecutable, KILL_GRACE, runProcessGroup } from "@united-workforce/util";

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
  /**
   * Keep stdin open instead, and hand it over once the child exists: the caller writes input
   * while the CLI runs (Claude Code's stream-json input) and closes it.
   */
  onStdin?: (stdin: Writable) => void;
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
   * Between SIGTERM and SIGKILL of the group on timeout or abort. Default `KILL_GRACE.nested`
   * (1 s): uwf gives an adapter 2 s between its own SIGTERM and SIGKILL, and the CLI, in a
   * group of its own, must be gone before that.
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
  run.signal?.throwIfAborted();
  const outcome = await runProcessGroup({
    command: run.command,
    args: run.args,
    cwd: run.cwd,
    env: run.env,
    stdin: run.onStdin ? "open" : run.stdin === undefined ? undefined : { text: run.stdin },
    onStdin: run.onStdin,
    graceMs: run.killGraceMs ?? KILL_GRACE.nested,
    timeoutMs: run.timeoutMs,
    signal: run.signal,
    onSpawn: run.onSpawn,
    stdout: { onLine: run.onStdoutLine },
    stderr: { onLine: run.onStderrLine, tailChars: STDERR_TAIL_CHARS },
    notFoundHint: run.notFoundHint,
  });
  return {
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    timedOut: outcome.timedOut,
    aborted: outcome.aborted,
    stderrTail: outcome.stderr.tail,
    pid: outcome.pid,
  };
}
