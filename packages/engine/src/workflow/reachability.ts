import { END, START } from "@united-workforce/protocol";
import type { Shape } from "./check-shape.js";
import { cannotReachEnd, unreachableRole } from "./messages.js";

/**
 * Every role is reached from $START (an error otherwise) and can reach $END (a warning
 * otherwise), a fan-out's child role counting as reached by its fan-out.
 */
export function checkReachability(shape: Shape, errors: string[], warnings: string[]): void {
  const next = new Map<string, Set<string>>();
  const endsDirectly = new Set<string>();
  const link = (source: string, role: string) => {
    if (!next.has(source)) next.set(source, new Set());
    next.get(source)?.add(role);
  };
  for (const { source, target } of shape.edges) {
    if (target.role === END) endsDirectly.add(source);
    // A fan-out's child role runs (in its child thread) whenever the fan-out does.
    const child = target.fanout?.role;
    if (child !== undefined && shape.roles.has(child)) link(source, child);
    if (!shape.roles.has(target.role)) continue;
    link(source, target.role);
  }

  const reached = new Set<string>();
  const queue = [...(next.get(START) ?? [])];
  while (queue.length > 0) {
    const role = queue.shift() as string;
    if (reached.has(role)) continue;
    reached.add(role);
    queue.push(...(next.get(role) ?? []));
  }

  // Roles that can reach $END: those with an $END edge, then whoever reaches one of them.
  const ending = new Set(endsDirectly);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [source, targets] of next) {
      if (!ending.has(source) && [...targets].some((t) => ending.has(t))) {
        ending.add(source);
        grew = true;
      }
    }
  }

  for (const role of shape.roles.keys()) {
    if (!reached.has(role)) errors.push(unreachableRole(role));
    // A role without a graph entry is already an error; it needs no warning on top.
    else if (!ending.has(role) && shape.graph?.has(role)) warnings.push(cannotReachEnd(role));
  }
}
