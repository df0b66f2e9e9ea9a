import { isAbsolute, join, normalize, relative, sep } from "node:path";
import type { SuspendInfo, ThreadPointer } from "@united-workforce/protocol";

/**
 * What of a bundle's pointer was not taken: what would run a command or name a place on this
 * machine without the importer's say.
 */
export interface DroppedFields {
  /** The agent the thread remembered (`--agent`): exec chooses one here, as for a new thread. */
  agent?: string;
  /** The bundle's cwd, when the thread runs elsewhere here. */
  cwd?: string;
  /** The path of the git worktree the thread had there. */
  worktree?: string;
  /** A suspension's `location` that is absolute or leaves the thread's cwd. */
  location?: string;
}

/**
 * Where a bundled thread runs here: at the same place relative to the importer's cwd as it was
 * to the exported thread's (a fan-out child in a subfolder stays in that subfolder), else in the
 * importer's cwd itself. Nothing of the bundle's path is kept but a relative part that stays
 * inside.
 */
export function placeIn(cwd: string, rootCwd: string, threadCwd: string): string {
  if (!isAbsolute(rootCwd) || !isAbsolute(threadCwd)) return cwd;
  const inside = relative(rootCwd, threadCwd);
  return staysInside(inside) ? join(cwd, inside) : cwd;
}

/** A relative path that names its base folder or a place under it. */
function staysInside(path: string): boolean {
  const normal = normalize(path);
  return !isAbsolute(normal) && normal !== ".." && !normal.startsWith(`..${sep}`);
}

/**
 * The pointer as this store takes it: the chain's state, in `cwd`, without what runs a command
 * or names a place of the other machine (the remembered agent, the worktree, a suspension's
 * location that is not relative and inside). Fields this uwf does not know are not taken.
 */
export function portable(
  pointer: ThreadPointer,
  cwd: string,
): { pointer: ThreadPointer; dropped: DroppedFields } {
  const dropped: DroppedFields = {};
  if (pointer.agent !== undefined) dropped.agent = pointer.agent;
  if (pointer.worktree !== undefined) dropped.worktree = pointer.worktree.path;
  if (pointer.cwd !== cwd) dropped.cwd = pointer.cwd;
  let suspended: SuspendInfo | null = pointer.suspended;
  const location = suspended?.location;
  if (typeof location === "string" && !staysInside(location)) {
    dropped.location = location;
    suspended = { ...suspended!, location: null };
  }
  const taken: ThreadPointer = {
    thread: pointer.thread,
    workflow: pointer.workflow,
    workflowHash: pointer.workflowHash,
    start: pointer.start,
    head: pointer.head,
    status: pointer.status,
    currentRole: pointer.currentRole,
    suspended,
    steps: pointer.steps,
    cwd,
    createdAt: pointer.createdAt,
    updatedAt: pointer.updatedAt,
  };
  if (pointer.title !== undefined) taken.title = pointer.title;
  if (pointer.forkedFrom !== undefined) taken.forkedFrom = pointer.forkedFrom;
  if (pointer.rebasedFrom !== undefined) {
    const { thread, step } = pointer.rebasedFrom;
    taken.rebasedFrom = { thread, step };
  }
  if (pointer.parent !== undefined) {
    const { thread, step, index } = pointer.parent;
    taken.parent = { thread, step, index };
  }
  // `thread race`: the race a fork runs in, the races of a thread, the promotion it took.
  if (pointer.race !== undefined) {
    const { id, of, at, agent, outcome } = pointer.race;
    taken.race = { id, of, at, agent, ...(outcome === undefined ? {} : { outcome }) };
  }
  if (pointer.races !== undefined) {
    taken.races = pointer.races.map(({ id, at, head }) => ({ id, at, head }));
  }
  if (pointer.promotedFrom !== undefined) {
    const { race, fork, head, kept } = pointer.promotedFrom;
    taken.promotedFrom = { race, fork, head, ...(kept === undefined ? {} : { kept }) };
  }
  // Pending `thread steer` notes: the next step here takes them.
  if (pointer.guidance !== undefined) {
    taken.guidance = pointer.guidance.map(({ text, at, rev }) => ({ text, at, rev }));
  }
  // Its schema allows no other keys in usage.
  if (pointer.usage !== undefined) taken.usage = pointer.usage;
  if (pointer.unknownCostSteps !== undefined) taken.unknownCostSteps = pointer.unknownCostSteps;
  return { pointer: taken, dropped };
}
