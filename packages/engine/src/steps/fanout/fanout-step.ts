import type { FanoutFailureRule, ThreadPointer } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import type { FanoutTransition } from "../../moderator/evaluate.js";
import type { RunContext } from "../context.js";
import { blockingChildren, fanoutReport, fanoutWaitReason } from "./child-standing.js";
import { makeChildren } from "./children.js";
import { type FanoutResult, join, joinFailure, joinWaits } from "./join.js";
import { type ChildRunner, runChildren } from "./run-children.js";

/** How many children run at once when the fan-out does not say. */
const DEFAULT_CONCURRENCY = 4;

export interface FanoutOptions {
  /**
   * `thread resume` of the parent: children that failed run their failed step again, and
   * those a budget stopped run the step it stopped before.
   */
  retryFailed: boolean;
  /** Runs one child (the runner's loop, with the parent run's agent, limits and budget). */
  runChild: ChildRunner;
}

/**
 * Run a fan-out: make each item's child thread (if it is not there yet), run the children that
 * can run, at most `concurrency` at once, each under its own lease until it completes or stops,
 * then either write the join step (every child ended as the failure rule allows) or suspend the
 * parent saying which children failed or wait. The caller holds the parent's lease.
 */
export async function runFanout(
  run: RunContext,
  pointer: ThreadPointer,
  transition: FanoutTransition,
  options: FanoutOptions,
): Promise<FanoutResult> {
  const workflow = await run.router.workflow(pointer.workflowHash);
  if (workflow.roles[transition.role]?.join !== true) {
    throw new UwfError(
      "WORKFLOW_INVALID",
      `workflow "${workflow.name}" fans out into role "${transition.role}", which is not a join role`,
      { hint: "A fan-out edge's role must be declared with `join: true`." },
    );
  }
  const childWorkflow = await run.router.workflow(transition.fanout.workflow);
  const failure: FanoutFailureRule = transition.fanout.failure ?? "all";
  const concurrency = transition.fanout.concurrency ?? DEFAULT_CONCURRENCY;

  const { children, problem } = await makeChildren(
    run,
    pointer,
    transition,
    childWorkflow,
    options.retryFailed,
  );
  if (problem !== null) {
    return joinFailure(pointer, transition, problem, fanoutReport(transition.role, children));
  }

  run.events.emit("fanout.started", {
    thread: pointer.thread,
    role: transition.role,
    children: children.length,
    concurrency,
    failure,
  });
  await runChildren(run, pointer, children, { concurrency, failure, ...options });

  const summary = fanoutReport(transition.role, children);
  if (run.signal.aborted) {
    return {
      kind: "stopped",
      message: `interrupted while the fan-out to role "${transition.role}" ran; run \`uwf thread exec ${pointer.thread}\` to go on (children that completed are kept)`,
      report: summary,
    };
  }
  const blocking = blockingChildren(children, failure);
  if (blocking !== null) {
    const reason = fanoutWaitReason(pointer.thread, transition.role, children, blocking);
    return joinWaits(pointer, transition, reason, children, summary);
  }
  return join(run, pointer, transition, children, summary);
}
