import { END, type Graph, START } from "@united-workforce/protocol";
import { evaluate, startOutput } from "./evaluate.js";

/** The step a route is read from: its role and output (null: the output could not be read). */
export interface RoutedFrom {
  role: string;
  output: Record<string, unknown> | null;
}

/**
 * The role the moderator sends a thread to after `previous` (null: the StartNode), and why; a
 * null role when the route names none to check against (an unreadable output, a `$START.new`
 * or `$START.resume` that leads to no role). A step that suspended (a `$SUSPEND` edge or
 * status, or a routing error) is followed by the same role, re-run by `thread resume`; one that
 * reached `$END` by `$START.resume`'s role. `thread verify` checks recorded steps with it, and
 * the engine checks a chosen step (resume, poke) before it runs.
 */
export function expectedRole(
  graph: Graph,
  previous: RoutedFrom | null,
  inputs: Record<string, unknown> | undefined,
): { role: string | null; why: string } {
  if (previous === null) {
    const first = evaluate(graph, START, startOutput("new"), inputs);
    return first.kind === "next" || first.kind === "fanout"
      ? { role: first.role, why: `$START.new leads to "${first.role}"` }
      : { role: null, why: "" };
  }
  if (previous.output === null) return { role: null, why: "" };
  const status = JSON.stringify(previous.output.$status);
  let next: ReturnType<typeof evaluate>;
  try {
    next = evaluate(graph, previous.role, previous.output, inputs);
  } catch {
    return { role: previous.role, why: `"${previous.role}" could not be routed, so it re-runs` };
  }
  // A fan-out's join step follows the step that fanned out, like any next role's.
  if (next.kind === "next" || next.kind === "fanout") {
    return {
      role: next.role,
      why: `"${previous.role}" answered ${status}, which leads to "${next.role}"`,
    };
  }
  if (next.kind === "suspend") {
    return { role: previous.role, why: `"${previous.role}" suspended, and a resume re-runs it` };
  }
  const restart = evaluate(graph, START, startOutput("resume"), inputs);
  const role = restart.kind === "next" ? restart.role : null;
  return { role, why: `"${previous.role}" reached ${END}, and $START.resume leads to "${role}"` };
}
