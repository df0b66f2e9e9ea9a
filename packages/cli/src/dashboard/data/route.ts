import { END, START, SUSPEND, type WorkflowPayload } from "@united-workforce/protocol";
import { edgeId } from "../pages/graph.js";

// Where a thread went on its workflow's graph: each edge its steps took, how often, and where
// it is now. Derived from the steps in chain order, so it is what the moderator routed.

export interface ThreadRoute {
  /** Edge anchor (`edgeId`) → times taken. */
  taken: Map<string, number>;
  /** Roles (and `$END`/`$SUSPEND`) the thread has been at. */
  visited: Set<string>;
  /** Where it is now: the role running or waiting, `$END` when completed; null when unknown. */
  current: string | null;
}

export interface RouteStep {
  role: string;
  status: string;
}

/**
 * The route of `steps` (oldest first) through `workflow`. A step the graph does not lead to
 * from the step before (a poke's, a fork's first) takes no edge; a step after a completed run
 * came by `$START.resume`.
 */
export function threadRoute(
  workflow: WorkflowPayload,
  steps: readonly RouteStep[],
  current: string | null,
): ThreadRoute {
  const taken = new Map<string, number>();
  const visited = new Set<string>([START]);
  const take = (from: string, status: string) => {
    const id = edgeId(from, status);
    taken.set(id, (taken.get(id) ?? 0) + 1);
  };
  const target = (from: string, status: string) => workflow.graph[from]?.[status]?.role;
  let before: RouteStep | null = null;
  for (const step of steps) {
    visited.add(step.role);
    if (before !== null && target(before.role, before.status) === step.role)
      take(before.role, before.status);
    else if (before === null && target(START, "new") === step.role) take(START, "new");
    else if (target(START, "resume") === step.role) take(START, "resume");
    before = step;
  }
  // The last step's edge, when the thread went where it leads: the end, a question, the role
  // that runs or waits now.
  if (before !== null) {
    const to = target(before.role, before.status);
    if (to !== undefined && (to === END || to === SUSPEND || to === current)) {
      take(before.role, before.status);
      visited.add(to);
    }
  }
  if (current !== null) visited.add(current);
  return { taken, visited, current };
}
