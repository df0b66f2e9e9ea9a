import type { FanoutFailureRule, ThreadPointer } from "@united-workforce/protocol";
import { errorMessage } from "@united-workforce/util";
import type { RunContext } from "../context.js";
import { type Child, type ChildStanding, standing } from "./child-standing.js";
import { firstLine } from "./wording.js";

/**
 * At most this many steps per child per exec of the parent: a child that loops is left idle
 * (and reported as waiting) instead of running for ever inside one exec.
 */
export const CHILD_STEP_LIMIT = 100;

/**
 * Run one child of a fan-out until it completes or stops, under its own lease (the runner's
 * loop, handed in: a step kind never runs the loop itself). `retryFailed`: `thread resume` of
 * the parent, so a child that failed runs its failed step again. "busy": another process runs it.
 */
export type ChildRunner = (
  child: string,
  retryFailed: boolean,
) => Promise<{ stoppedBecause: string; pointer: ThreadPointer } | "busy">;

/** How the children of one fan-out run. */
export interface RunChildrenOptions {
  /** How many children run at once. */
  concurrency: number;
  /** `all`: once a child failed, no other is started (the join cannot be written anyway). */
  failure: FanoutFailureRule;
  /** `thread resume` of the parent: children run their failed step again. */
  retryFailed: boolean;
  runChild: ChildRunner;
}

/**
 * Run the children that can run (`pending`), at most `concurrency` at once, and record where
 * each ended in its `Child` (emitting `fanout.child`). Stops starting children once the run is
 * interrupted, or once one failed under `failure: all`.
 */
export async function runChildren(
  run: RunContext,
  parent: ThreadPointer,
  children: Child[],
  options: RunChildrenOptions,
): Promise<void> {
  const queue = children.filter((c) => c.outcome === "pending");
  const stopLaunching = () =>
    run.signal.aborted ||
    (options.failure === "all" && children.some((c) => c.outcome === "failed"));
  const worker = async (): Promise<void> => {
    for (let child = queue.shift(); child !== undefined; child = queue.shift()) {
      if (stopLaunching()) return;
      // Never throws: a worker that threw would leave the others running after exec returned.
      let ended: ChildStanding;
      try {
        ended = await runChild(parent, child, options);
      } catch (error) {
        ended = { outcome: "failed", reason: errorMessage(error) };
      }
      Object.assign(child, ended);
      run.events.emit("fanout.child", {
        thread: parent.thread,
        child: child.thread,
        index: child.index,
        status: child.outcome,
        ...(child.reason === undefined ? {} : { reason: firstLine(child.reason) }),
      });
    }
  };
  const workers = Math.min(options.concurrency, queue.length);
  await Promise.all(Array.from({ length: workers }, () => worker()));
}

/** Run one child until it completes or stops, and say where it ended. */
async function runChild(
  parent: ThreadPointer,
  child: Child,
  options: RunChildrenOptions,
): Promise<ChildStanding> {
  let ran: Awaited<ReturnType<ChildRunner>>;
  try {
    ran = await options.runChild(child.thread, options.retryFailed);
  } catch (error) {
    // E.g. no agent configured: the child did not move; it counts as failed for this exec.
    return { outcome: "failed", reason: errorMessage(error) };
  }
  if (ran === "busy") return { outcome: "waiting", reason: "another process is running it" };
  if (ran.stoppedBecause === "stopped") return { outcome: "waiting", reason: "interrupted" };
  const info = ran.pointer.suspended;
  if (ran.pointer.status === "suspended" && info?.kind === "fanout") {
    // A nested fan-out that cannot join: failed when one of its children failed.
    return {
      outcome: ran.stoppedBecause === "failed" ? "failed" : "waiting",
      kind: "fanout",
      role: info.role,
      reason: info.reason,
    };
  }
  const after = standing(ran.pointer, false);
  if (after.outcome === "pending") {
    return {
      outcome: "waiting",
      reason: `ran ${CHILD_STEP_LIMIT} steps in this exec without ending; uwf thread exec ${parent.thread} runs it on`,
    };
  }
  return after;
}
