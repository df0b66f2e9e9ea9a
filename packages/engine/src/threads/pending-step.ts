import { START, type SuspendInfo, type ThreadPointer } from "@united-workforce/protocol";
import { type Engine, type PlannedStep, prevOf } from "./engine.js";

/** Suspensions that stopped a planned step (it failed, or did not start): it runs again. */
const RERUN_KINDS: ReadonlySet<SuspendInfo["kind"]> = new Set([
  "failure",
  "retry",
  "budget",
  "guard",
]);

/**
 * The step a thread suspended on a role runs again (`thread resume`, `thread exec --wait`, a
 * fan-out re-running its failed children): that role, with `prompt`, where it was to run. A
 * failed poke's step replaces the head again, following the head's own `prev`, as the poke
 * would have: following the head would put the role where the head's status does not lead.
 */
export async function rerunStep(
  engine: Engine,
  pointer: ThreadPointer,
  info: SuspendInfo,
  prompt: string,
): Promise<PlannedStep> {
  const head = (await replacesHead(engine, pointer, info)) ? await engine.headStep(pointer) : null;
  if (head === null) {
    return {
      role: info.role,
      prompt,
      location: info.location ?? null,
      prev: prevOf(pointer),
      replaceHead: false,
    };
  }
  return {
    role: info.role,
    prompt,
    location: info.location ?? head.cwd,
    prev: head.prev,
    replaceHead: true,
  };
}

/**
 * Whether the step a suspended thread runs again replaces the head: a poke's, stopped by a
 * failure or a guard. Pointers written before uwf recorded `replaceHead` say nothing; there, a
 * step of the head's own role that the head's status does not lead to can only be a poke's
 * (a step the moderator planned follows the head's route).
 */
export async function replacesHead(
  engine: Engine,
  pointer: ThreadPointer,
  info: SuspendInfo,
): Promise<boolean> {
  if (!RERUN_KINDS.has(info.kind) || pointer.head === pointer.start) return false;
  if (info.replaceHead !== undefined) return info.replaceHead;
  if (info.role !== pointer.currentRole) return false;
  return (await engine.routeProblem(pointer, { role: info.role, prev: pointer.head })) !== null;
}

/** The role a thread runs next, and whether its step replaces the head. */
export interface PendingStep {
  role: string;
  replaceHead: boolean;
}

/**
 * What runs next on a thread: for an idle one, the role its head routes to (exec runs it); for
 * a suspended one, the role `thread resume` (or `thread answer`) runs, and whether it replaces
 * the head (a failed poke's retry). Null when nothing runs next: the thread completed or was
 * cancelled, or its head leads to `$END` or `$SUSPEND`. A routing error is thrown.
 */
export async function pendingStep(
  engine: Engine,
  pointer: ThreadPointer,
): Promise<PendingStep | null> {
  if (pointer.status !== "idle" && pointer.status !== "suspended") return null;
  const info = pointer.status === "suspended" ? pointer.suspended : null;
  if (info && info.role !== START) {
    return { role: info.role, replaceHead: await replacesHead(engine, pointer, info) };
  }
  const next = await engine.route(pointer);
  return next.kind === "next" || next.kind === "fanout"
    ? { role: next.role, replaceHead: false }
    : null;
}
