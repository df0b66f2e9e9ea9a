import type { Writable } from "node:stream";
import { errorMessage, UwfError } from "../errors.js";
import { type OutputOptions, OutputReader, type OutputSummary } from "./output-reader.js";
import { type ProcessGroupOptions, startProcessGroup } from "./process-group.js";
import { commandNotFound } from "./resolve-command.js";

export interface ProcessRun extends ProcessGroupOptions {
  /** End the group (SIGTERM, SIGKILL after the grace) after this long; null or absent: never. */
  timeoutMs?: number | null;
  /** Aborting ends the group the same way. */
  signal?: AbortSignal;
  /**
   * Called once the process exists, with its pid (= its process group id), before anything
   * else can happen. If it throws, or the promise it returns rejects (recording the group in a
   * lease on a full disk), the group is killed and the run rejects with its error.
   */
  onSpawn?(pid: number): unknown;
  /** With `stdin: "open"`: the process's stdin, for the caller to write and close. */
  onStdin?(stdin: Writable): void;
  stdout?: OutputOptions;
  stderr?: OutputOptions;
  /** The hint of the error for a command that is not found, e.g. how to install it. */
  notFoundHint?: string;
  /** The hint of the error for arguments and environment too large to start with. */
  tooLargeHint?: string;
}

export interface ProcessRunOutcome {
  /** The leader's pid, which was the group's id. */
  pid: number;
  /** The exit code, or null when the leader was ended by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  stdout: OutputSummary;
  stderr: OutputSummary;
}

/** setTimeout fires at once for a longer delay (or Infinity): longer timeouts wait this long. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Linux's limit on one argument or environment string (MAX_ARG_STRLEN). */
const MAX_ARG_BYTES = 128 * 1024;

/**
 * Run a command in a process group of its own (`startProcessGroup`) and wait until it has ended
 * and its output is read. A timeout or an abort ends the group by the grace policy. A command
 * that cannot start rejects with an AGENT_FAILED error that says why (the errno error is its
 * `cause`).
 */
export async function runProcessGroup(run: ProcessRun): Promise<ProcessRunOutcome> {
  const group = startProcessGroup(run);
  const stdout = new OutputReader(run.stdout);
  const stderr = new OutputReader(run.stderr);
  group.stdout.on("data", (chunk: Buffer) => stdout.write(chunk));
  group.stderr.on("data", (chunk: Buffer) => stderr.write(chunk));
  let spawnFailure: { error: unknown } | null = null;
  if (group.pid !== undefined && run.onSpawn !== undefined) {
    try {
      const recorded = run.onSpawn(group.pid);
      if (recorded instanceof Promise) {
        recorded.catch((error: unknown) => {
          spawnFailure = { error };
          group.kill();
        });
      }
    } catch (error) {
      group.kill();
      throw error;
    }
  }

  if (run.stdin === "open" && group.stdin !== null) run.onStdin?.(group.stdin);

  let timedOut = false;
  let aborted = false;
  let timer: NodeJS.Timeout | undefined;
  if (run.timeoutMs !== undefined && run.timeoutMs !== null) {
    timer = setTimeout(
      () => {
        timedOut = true;
        group.terminate();
      },
      Math.min(Math.max(0, run.timeoutMs), MAX_TIMER_MS),
    );
  }
  const onAbort = (): void => {
    aborted = true;
    group.terminate();
  };
  if (run.signal?.aborted) onAbort();
  run.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const exit = await group.closed;
    if (spawnFailure !== null) throw (spawnFailure as { error: unknown }).error;
    if (exit.error !== null) throw startFailure(run, exit.error);
    stdout.end();
    stderr.end();
    return {
      pid: group.pid ?? 0,
      exitCode: exit.exitCode,
      signal: exit.signal,
      timedOut,
      aborted,
      stdout: stdout.summary(),
      stderr: stderr.summary(),
    };
  } finally {
    clearTimeout(timer);
    run.signal?.removeEventListener("abort", onAbort);
  }
}

function startFailure(run: ProcessRun, error: NodeJS.ErrnoException): UwfError {
  const { command } = run;
  if (error.code === "ENOENT" || error.code === "EACCES") {
    return new UwfError("AGENT_FAILED", commandNotFound(command, run.cwd), {
      hint: run.notFoundHint ?? null,
      cause: error,
    });
  }
  if (error.code === "E2BIG") {
    const sizes = [
      ...run.args,
      ...Object.entries(run.env).map(([name, value]) => `${name}=${value ?? ""}`),
    ].map((text) => Buffer.byteLength(text));
    const longest = Math.max(...sizes);
    const total = sizes.reduce((sum, size) => sum + size, 0);
    return new UwfError(
      "AGENT_FAILED",
      `could not start "${command}": its arguments and environment are too large for the operating system (${total} bytes in all, the longest string ${longest} bytes; Linux allows ${MAX_ARG_BYTES} per string)`,
      { hint: run.tooLargeHint ?? null, cause: error },
    );
  }
  return new UwfError("AGENT_FAILED", `could not start "${command}": ${errorMessage(error)}`, {
    cause: error,
  });
}
