import {
  type ExecStepResult,
  ExitCode,
  type StoppedBecause,
  type ThreadExecDocument,
  type ThreadPointer,
  type ThreadStatus,
} from "@united-workforce/protocol";
import type { UwfError } from "@united-workforce/util";
import type { FanoutReport } from "../steps/fanout/child-standing.js";

/** How a run ended: the thread after it, the steps it stored, and why it stopped. */
export interface ExecSummary {
  pointer: ThreadPointer;
  steps: ExecStepResult[];
  stoppedBecause: StoppedBecause;
  message: string;
  failure: UwfError | null;
  /** The fan-outs this run ran, with where each child stands. */
  fanouts?: FanoutReport[];
}

/** The exec document of a run, with a failure's hint and how to retry it in the message. */
export function execDocument(summary: ExecSummary, status: ThreadStatus): ThreadExecDocument {
  return {
    thread: summary.pointer.thread,
    status,
    stoppedBecause: summary.stoppedBecause,
    message: summary.failure ? failureMessage(summary, summary.failure) : summary.message,
    steps: summary.steps,
    ...(summary.fanouts === undefined ? {} : { fanouts: summary.fanouts }),
  };
}

/**
 * Exit status of a run: a failed agent (the thread is suspended), or an interrupted run, which a
 * thread cancelled before this exec is too: `thread join` and `watch` say 130 for it, and a
 * script looping on exec must not take it for a thread that is fine.
 */
export function execExitCode(doc: Pick<ThreadExecDocument, "stoppedBecause">): ExitCode {
  if (doc.stoppedBecause === "failed") return ExitCode.agentFailed;
  if (doc.stoppedBecause === "stopped" || doc.stoppedBecause === "cancelled") {
    return ExitCode.interrupted;
  }
  return ExitCode.ok;
}

/** A failed step's reason, what to fix (when known), and how to retry it. */
function failureMessage(summary: ExecSummary, failure: UwfError): string {
  const lines = [summary.message];
  if (failure.hint) lines.push(failure.hint);
  const id = summary.pointer.thread;
  const retryAfter = summary.pointer.suspended?.retryAfter;
  lines.push(
    retryAfter === undefined
      ? `The head did not move. To retry the step: uwf thread resume ${id}`
      : `The head did not move. To retry the step at ${retryAfter}: uwf thread exec ${id} --wait (or now: uwf thread resume ${id})`,
  );
  return lines.join("\n");
}
