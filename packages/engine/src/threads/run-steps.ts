import type { ExecStepResult, ThreadPointer } from "@united-workforce/protocol";
import type { Lease } from "@united-workforce/store";
import { type Engine, type ExecSummary, type PlannedStep, prevOf } from "./engine.js";

export interface RunOptions {
  count: number;
  agentFlag?: string | undefined;
  lease: Lease;
  /** Resume and poke choose the first step themselves instead of asking the moderator. */
  first?: (pointer: ThreadPointer) => PlannedStep | Promise<PlannedStep>;
}

/**
 * Run up to `count` steps on a thread whose lock the caller holds. Stops early when the thread
 * completes, suspends, fails or is interrupted, and always says why.
 */
export async function runSteps(
  engine: Engine,
  threadId: string,
  options: RunOptions,
): Promise<ExecSummary> {
  let pointer = await engine.store.threads.get(threadId);
  const steps: ExecStepResult[] = [];
  const stop = (stoppedBecause: ExecSummary["stoppedBecause"], message: string): ExecSummary => ({
    pointer,
    steps,
    stoppedBecause,
    message,
    failure: null,
  });

  for (let i = 0; i < options.count; i++) {
    const custom = i === 0 ? options.first : undefined;
    if (!custom) {
      const terminal = terminalReason(pointer);
      if (terminal) return stop(terminal.because, terminal.message);
    }
    let plan: PlannedStep;
    if (custom) {
      plan = await custom(pointer);
    } else {
      const next = await engine.route(pointer);
      if (next.kind !== "next") {
        pointer = await engine.settle(pointer);
        const terminal = terminalReason(pointer);
        return stop(terminal?.because ?? "count", terminal?.message ?? "");
      }
      plan = {
        role: next.role,
        prompt: next.prompt,
        location: next.location,
        prev: prevOf(pointer),
        replaceHead: false,
      };
    }
    if (engine.ctx.signal.aborted) return stop("stopped", "interrupted before the step started");
    const result = await engine.runStep(pointer, plan, {
      agentFlag: options.agentFlag,
      lease: options.lease,
    });
    pointer = result.pointer;
    if (result.aborted)
      return stop("stopped", `interrupted while role "${plan.role}" ran; the head did not move`);
    if (result.failure) {
      return {
        pointer,
        steps,
        stoppedBecause: "failed",
        message: result.failure.message,
        failure: result.failure,
      };
    }
    if (result.step) steps.push(result.step);
    // The step was good but routing from it failed (e.g. its edge prompt renders blank): the
    // thread waits for a fix like after any failure, and the exit code says so.
    if (pointer.status === "suspended" && pointer.suspended?.kind === "failure") {
      return {
        pointer,
        steps,
        stoppedBecause: "failed",
        message: pointer.suspended.reason,
        failure: null,
      };
    }
    if (pointer.status === "completed" || pointer.status === "suspended") {
      const terminal = terminalReason(pointer)!;
      return stop(terminal.because, terminal.message);
    }
  }
  return stop(
    "count",
    `ran ${steps.length} step${steps.length === 1 ? "" : "s"}; run \`uwf thread exec ${threadId}\` to continue`,
  );
}

export function terminalReason(
  pointer: ThreadPointer,
): { because: ExecSummary["stoppedBecause"]; message: string } | null {
  switch (pointer.status) {
    case "completed":
      return {
        because: "completed",
        message: `thread is completed. To run it again from $START.resume: uwf thread resume ${pointer.thread}`,
      };
    case "cancelled":
      return {
        because: "cancelled",
        message: "thread is cancelled; nothing runs on it. Fork a step to continue its work.",
      };
    case "suspended": {
      const info = pointer.suspended;
      if (info?.kind === "human") {
        return {
          because: "suspended",
          message: `thread waits for a human to answer role "${info.role}":\n${info.reason}`,
        };
      }
      const reason = info
        ? `${info.kind === "question" ? "question" : "failure"} from role "${info.role}": ${info.reason}`
        : "";
      const how =
        info?.kind === "question"
          ? `uwf thread resume ${pointer.thread} -p "<your answer>"`
          : `uwf thread resume ${pointer.thread}`;
      return {
        because: "suspended",
        message: `thread is suspended (${reason}). To continue: ${how}`,
      };
    }
    default:
      return null;
  }
}
