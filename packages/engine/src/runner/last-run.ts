import { readFileSync } from "node:fs";
import { type ErrorCode, ExitCode, type ThreadPointer } from "@united-workforce/protocol";
import { eventOf, listLogFiles, parseLogLine, UwfError } from "@united-workforce/util";
import { suspendedByFailure } from "./stop-reasons.js";

/** How a thread's last run ended: its exit code, and its own words when it was stopped. */
export interface LastRun {
  exitCode: ExitCode;
  stopped: string | null;
  /** The thread waits on a failed step (for good, or after transient failures). */
  failed: boolean;
}

/**
 * How an exec ended, as it logged it: `exec.end` with its exit code (a background worker's: the
 * one it would have had in the foreground), or, from a worker only, `exec.error` with the error
 * it would have printed.
 */
export type WorkerOutcome =
  | {
      kind: "ended";
      at: string;
      pid: number;
      exitCode: ExitCode;
      stoppedBecause: string;
      message: string;
    }
  | {
      kind: "error";
      at: string;
      pid: number;
      exitCode: ExitCode;
      code: string;
      message: string;
      hint: string | null;
    };

/**
 * The outcome the last exec of `thread` logged, when it came after the thread's last
 * change (`since`: the pointer's `updatedAt`), so it still describes the thread; else null. A run
 * that changed the thread logs its outcome after its last write, and one that did not ran after
 * the last change, so the log is read from that day on and nothing older can matter.
 */
export function lastWorkerOutcome(
  home: string,
  thread: string,
  since: string,
): WorkerOutcome | null {
  const threadField = `"thread":${JSON.stringify(thread)}`;
  let last: WorkerOutcome | null = null;
  for (const file of listLogFiles(home)) {
    if (file.date < since.slice(0, 10)) continue;
    let text: string;
    try {
      text = readFileSync(file.path, "utf8");
    } catch {
      continue; // Removed by `log clean` meanwhile.
    }
    for (const line of text.split("\n")) {
      // Most lines are another thread's or an agent's output: skipped before any parse.
      if (!line.includes(threadField)) continue;
      if (!line.includes('"event":"exec.end"') && !line.includes('"event":"exec.error"')) continue;
      const outcome = parseOutcome(line, thread);
      if (outcome !== null && outcome.at >= since) last = outcome;
    }
  }
  return last;
}

/**
 * How the last run of a thread ended, as `join` and `watch` report it: the exit code the run
 * had (a background worker's: as it would have had in the foreground), and its own words when it was stopped or cancelled (the
 * thread's state does not say so). Every run logs both as it ends; for a run that did not
 * (killed, or older than the thread's last change) the thread's state tells: 4 when a failed
 * agent suspended it (`failed`), 130 when it is cancelled (as an exec on it exits), else 0. A
 * worker that failed with an error throws that error, with its code and so its exit code.
 */
export function lastRun(home: string, pointer: ThreadPointer): LastRun {
  const failed = suspendedByFailure(pointer);
  const outcome = lastWorkerOutcome(home, pointer.thread, pointer.updatedAt);
  if (outcome?.kind === "error") throw workerError(pointer.thread, outcome);
  return {
    exitCode:
      outcome?.exitCode ??
      (failed
        ? ExitCode.agentFailed
        : pointer.status === "cancelled"
          ? ExitCode.interrupted
          : ExitCode.ok),
    stopped: outcome?.stoppedBecause === "stopped" ? outcome.message : null,
    failed,
  };
}

/** The error a worker logged, as `join` and `watch` report it: same code, so same exit code. */
export function workerError(thread: string, outcome: WorkerOutcome & { kind: "error" }): UwfError {
  return new UwfError(
    outcome.code as ErrorCode,
    `the background exec of thread ${thread} (pid ${outcome.pid}) failed: ${outcome.message}`,
    {
      hint: outcome.hint ?? `See its log: uwf log show --thread ${thread}`,
      details: { pid: outcome.pid },
    },
  );
}

function parseOutcome(line: string, thread: string): WorkerOutcome | null {
  const record = parseLogLine(line);
  if (record === null || typeof record.pid !== "number") return null;
  const event = eventOf(record);
  if (event === null || !("thread" in event) || event.thread !== thread) return null;
  const { pid } = record;
  if (event.event === "exec.end" && isExitCode(event.exitCode)) {
    const { ts: at, exitCode, stoppedBecause, message } = event;
    return { kind: "ended", at, pid, exitCode, stoppedBecause, message };
  }
  if (event.event === "exec.error" && isExitCode(event.exitCode)) {
    const { ts: at, exitCode, code, message, hint } = event;
    return { kind: "error", at, pid, exitCode, code, message, hint };
  }
  return null;
}

function isExitCode(value: unknown): value is ExitCode {
  return (Object.values(ExitCode) as unknown[]).includes(value);
}
