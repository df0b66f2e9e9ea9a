import type { ThreadPointer } from "@united-workforce/protocol";
import type { RunContext } from "../steps/context.js";
import type { PlannedStep } from "../steps/planned-step.js";

/** A guard a resumed run goes past: `maxSteps`, or the `maxVisits` of one role. */
export interface LiftedGuard {
  guard: "maxSteps" | "maxVisits";
  role: string;
}

/** A workflow guard the planned step would cross, with the reason the thread suspends. */
export interface GuardReached {
  guard: "maxSteps" | "maxVisits";
  reason: string;
}

/**
 * Whether the planned step would cross the workflow's `maxSteps` or its role's `maxVisits`,
 * both counted over the thread's whole chain (a fork's chain includes the steps it was forked
 * from). `maxSteps` reads the pointer's step count. `maxVisits` walks back from the new step's
 * `prev` only for a role that declares it, and stops at the limit's count of visits: a role
 * visited often stops the walk early, one visited rarely costs a walk to the StartNode.
 */
export async function guardReached(
  run: Pick<RunContext, "store" | "router">,
  pointer: ThreadPointer,
  plan: PlannedStep,
  lifted?: LiftedGuard,
): Promise<GuardReached | null> {
  const workflow = await run.router.workflow(pointer.workflowHash);
  // A poke replaces the head: the chain does not grow, the role's visit is redone.
  const before = plan.replaceHead ? pointer.steps - 1 : pointer.steps;
  const stepsLifted = lifted?.guard === "maxSteps";
  if (workflow.maxSteps !== undefined && !stepsLifted && before >= workflow.maxSteps) {
    return {
      guard: "maxSteps",
      reason: `the thread has taken ${before} steps, its workflow's maxSteps is ${workflow.maxSteps}`,
    };
  }
  const maxVisits = workflow.roles[plan.role]?.maxVisits;
  if (maxVisits === undefined) return null;
  if (lifted?.guard === "maxVisits" && lifted.role === plan.role) return null;
  const visits = await countVisits(run, plan.prev, plan.role, maxVisits);
  if (visits < maxVisits) return null;
  return {
    guard: "maxVisits",
    reason: `role "${plan.role}" has reached its maxVisits of ${maxVisits} steps in this thread`,
  };
}

/** Steps of `role` from `from` back to the StartNode, counted up to `enough` at most. */
async function countVisits(
  run: Pick<RunContext, "store">,
  from: string | null,
  role: string,
  enough: number,
): Promise<number> {
  let visits = 0;
  let hash = from;
  while (hash !== null && visits < enough) {
    const step = await run.store.cas.getPayload<{ role: string; prev: string | null }>(
      hash,
      "step",
    );
    if (step.role === role) visits++;
    hash = step.prev;
  }
  return visits;
}
