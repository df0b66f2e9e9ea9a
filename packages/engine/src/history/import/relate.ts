import type { StepPayload, ThreadPointer } from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";
import { UwfError } from "@united-workforce/util";
import type { DroppedFields } from "./portable.js";

/** What importing does to one thread, decided before anything is written. */
export type Plan =
  | { kind: "create"; pointer: ThreadPointer; dropped: DroppedFields }
  | {
      kind: "fast-forward";
      here: ThreadPointer;
      pointer: ThreadPointer;
      dropped: DroppedFields;
      by: number;
    }
  | { kind: "unchanged"; here: ThreadPointer; bundleStatus?: ThreadPointer["status"] }
  | { kind: "ahead"; here: ThreadPointer; by: number };

/** How the bundle's thread stands to the one here: new, same, behind, ahead, or another history. */
export async function relate(
  local: Cas,
  bundled: Cas,
  here: ThreadPointer | null,
  wanted: { pointer: ThreadPointer; dropped: DroppedFields },
): Promise<Plan> {
  const { pointer, dropped } = wanted;
  if (here === null) return { kind: "create", pointer, dropped };
  if (here.start !== pointer.start || here.workflowHash !== pointer.workflowHash) {
    throw anotherHistory(
      pointer.thread,
      `it started from StartNode ${here.start} here and from ${pointer.start} in the bundle, so the two share no step`,
    );
  }
  if (here.head === pointer.head) {
    // The same history: what each store did with it since (cancel, a failed retry) is its own.
    return here.status === pointer.status
      ? { kind: "unchanged", here }
      : { kind: "unchanged", here, bundleStatus: pointer.status };
  }
  if (pointer.steps > here.steps) {
    const by = pointer.steps - here.steps;
    if ((await stepBack(bundled, pointer.head, by, pointer.start)) === here.head) {
      const moved: ThreadPointer = {
        ...here,
        head: pointer.head,
        steps: pointer.steps,
        currentRole: pointer.currentRole,
        status: pointer.status,
        suspended: pointer.suspended,
        updatedAt: pointer.updatedAt,
      };
      if (pointer.usage !== undefined) moved.usage = pointer.usage;
      if (pointer.unknownCostSteps !== undefined) moved.unknownCostSteps = pointer.unknownCostSteps;
      return { kind: "fast-forward", here, pointer: moved, dropped, by };
    }
  } else if (here.steps > pointer.steps) {
    const by = here.steps - pointer.steps;
    if ((await stepBack(local, here.head, by, here.start)) === pointer.head) {
      return { kind: "ahead", here, by };
    }
  }
  throw anotherHistory(pointer.thread, await partingWords(local, here, bundled, pointer));
}

/** The node `count` steps back from `from` (the StartNode when it gets there), null if shorter. */
async function stepBack(
  cas: Cas,
  from: string,
  count: number,
  start: string,
): Promise<string | null> {
  let hash = from;
  for (let i = 0; i < count; i++) {
    if (hash === start) return null;
    hash = (await cas.getPayload<StepPayload>(hash, "step")).prev ?? start;
  }
  return hash;
}

/** Where two chains of one StartNode part: how many steps they share, then what each has. */
async function partingWords(
  local: Cas,
  here: ThreadPointer,
  bundled: Cas,
  pointer: ThreadPointer,
): Promise<string> {
  const ours = await chainOf(local, here.head, here.start);
  const theirs = await chainOf(bundled, pointer.head, pointer.start);
  let shared = 0;
  while (shared < ours.length && shared < theirs.length && ours[shared] === theirs[shared])
    shared++;
  const both =
    shared === 0
      ? `both start from its StartNode ${here.start}`
      : shared === 1
        ? `both have its first step (${theirs[0]})`
        : `both have its first ${shared} steps (up to ${theirs[shared - 1]})`;
  return `${both}, then this store's has ${plural(ours.length - shared, "step")} of its own (head ${here.head}) and the bundle's ${plural(theirs.length - shared, "step")} (head ${pointer.head})`;
}

/** A chain's step hashes, oldest first. */
async function chainOf(cas: Cas, head: string, start: string): Promise<string[]> {
  const hashes: string[] = [];
  for (let hash: string | null = head; hash !== null && hash !== start; ) {
    hashes.push(hash);
    hash = (await cas.getPayload<StepPayload>(hash, "step")).prev;
  }
  return hashes.reverse();
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function anotherHistory(thread: string, where: string): UwfError {
  return new UwfError(
    "THREAD_EXISTS",
    `thread ${thread} exists here with another history: ${where}; nothing was imported`,
    {
      hint: `this store's thread stays as it is (\`uwf thread show ${thread}\`); to read the bundle's, import it into a store of its own: UWF_HOME=<empty folder> uwf thread import <file>`,
      details: { thread },
    },
  );
}
