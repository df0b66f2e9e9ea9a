import type { StoppedBecause, ThreadPointer } from "@united-workforce/protocol";
import { shellQuote } from "@united-workforce/util";
import { cancelledHint } from "../threads/cancelled-hint.js";

/**
 * A thread suspended because its agent failed (for good, or after transient failures): the
 * exit code of a run that stops on it is 4, as when the agent failed in that run.
 */
export function suspendedByFailure(pointer: ThreadPointer): boolean {
  const kind = pointer.suspended?.kind;
  return pointer.status === "suspended" && (kind === "failure" || kind === "retry");
}

/** A parent suspended until its fan-out's children end: exec looks at them again. */
export function waitsOnFanout(pointer: ThreadPointer): boolean {
  return pointer.status === "suspended" && pointer.suspended?.kind === "fanout";
}

/**
 * Why a run stops after its step left the thread completed or waiting. A guard reached by the
 * next role (a human role is asked at once, so its guard is checked when the step is stored)
 * says `guard`, as when the run reaches one before an agent's step.
 */
export function afterStep(pointer: ThreadPointer): NonNullable<ReturnType<typeof terminalReason>> {
  const terminal = terminalReason(pointer)!;
  return pointer.suspended?.kind === "guard" ? { ...terminal, because: "guard" } : terminal;
}

/**
 * Why no step may run on a thread in this state, or null when one may: `failed` (exit 4) for a
 * thread its agent's failure suspended, `suspended` for one that waits on a human, a budget or
 * a guard, `completed`, `cancelled`. The `uwf thread resume` it suggests carries `agentFlag`,
 * the `--agent` an exec was given: exec runs nothing here, and resume is where that agent runs.
 */
export function terminalReason(
  pointer: ThreadPointer,
  agentFlag?: string,
): { because: StoppedBecause; message: string } | null {
  const agent = agentFlag === undefined ? "" : ` --agent ${shellQuote(agentFlag)}`;
  const resume = `uwf thread resume ${pointer.thread}${agent}`;
  switch (pointer.status) {
    case "completed":
      return {
        because: "completed",
        message: `thread is completed. To run it again from $START.resume: ${resume}`,
      };
    case "cancelled":
      return {
        because: "cancelled",
        message: `thread is cancelled; nothing runs on it. ${cancelledHint(pointer)}`,
      };
    case "suspended": {
      const info = pointer.suspended;
      if (info?.kind === "fanout") {
        return { because: "suspended", message: `thread waits for its fan-out: ${info.reason}` };
      }
      // Its agent failed in an earlier run, and nothing ran since: the exit code says so again
      // (a script that retries exec must not take the thread for one that moved on).
      if (info?.kind === "failure") {
        return {
          because: "failed",
          message: `thread is suspended: role "${info.role}" failed: ${info.reason}\nThe head did not move. To retry the step: ${resume}`,
        };
      }
      if (info?.kind === "human") {
        return {
          because: "suspended",
          message: `thread waits for a human to answer role "${info.role}":\n${info.reason}`,
        };
      }
      const reason = !info
        ? ""
        : info.kind === "budget" || info.kind === "guard"
          ? `${info.kind}, before role "${info.role}": ${info.reason}`
          : info.kind === "retry"
            ? `transient failure of role "${info.role}", retry after ${info.retryAfter}`
            : `${info.kind} from role "${info.role}": ${info.reason}`;
      const how =
        info?.kind === "question"
          ? `uwf thread resume ${pointer.thread} -p "<your answer>"${agent}`
          : info?.kind === "retry"
            ? `uwf thread exec ${pointer.thread}${agent} --wait (waits until then), or ${resume} (now)`
            : resume;
      return {
        because: info?.kind === "retry" ? "failed" : "suspended",
        message: `thread is suspended (${reason}). To continue: ${how}`,
      };
    }
    default:
      return null;
  }
}
