import type { ThreadPointer, WorkflowTestThread } from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { readRecording } from "../../history/recordings.js";
import { terminalReason } from "../stop-reasons.js";
import { compare, route } from "./compare.js";

type Recording = Awaited<ReturnType<typeof readRecording>>;

/** A recorded thread and its replay, whose fan-out children are to be compared. */
export interface Family {
  origin: string;
  recorded: Recording;
  replayed: Recording;
  /** uwf-replay's last report for each thread of the replayed family. */
  reports: Map<string, Record<string, unknown>>;
  /** Why the replay of the top thread stopped: for a child whose own state says nothing. */
  message: string;
}

/**
 * The recorded children of a parent compared with those its replay made, paired by the step
 * of the parent they fanned out after (by its number: the replay's steps have other hashes) and
 * their item; then their own children, depth first. A recorded child without a replayed twin,
 * or a replayed one without a recorded twin, is a different route.
 */
export async function compareChildren(
  store: Store,
  children: Map<string, ThreadPointer[]>,
  pair: Family,
): Promise<WorkflowTestThread[]> {
  const key = (child: ThreadPointer, parent: Recording): string => {
    const at = child.parent!.step;
    const stepNumber =
      at === parent.pointer.start ? 0 : parent.steps.findIndex((s) => s.hash === at) + 1;
    return `${stepNumber}/${child.parent!.index}`;
  };
  const replayedByKey = new Map(
    (children.get(pair.replayed.pointer.thread) ?? []).map((child) => [
      key(child, pair.replayed),
      child,
    ]),
  );
  const recordedChildren = childrenOf(children, pair.recorded.pointer.thread);
  const results: WorkflowTestThread[] = [];
  for (const child of recordedChildren) {
    const parent = { thread: pair.recorded.pointer.thread, index: child.parent!.index };
    const twin = replayedByKey.get(key(child, pair.recorded));
    if (twin === undefined) {
      const reason = `the replay of its parent made no child for item ${child.parent!.index} of this fan-out`;
      const side = { kind: "recorded", origin: pair.origin } as const;
      results.push(...(await unmatched(store, children, side, child, parent, reason)));
      continue;
    }
    const recorded = await readRecording(store, child.thread, pair.origin);
    const replayed = await readRecording(store, twin.thread, "replay");
    results.push({
      ...compare({
        thread: child.thread,
        origin: pair.origin,
        recorded: recorded.steps,
        recordedStatus: recorded.pointer.status,
        replayThread: twin.thread,
        replayed: replayed.steps,
        replayPointer: replayed.pointer,
        // Why the child stopped is its own state's to say; the top's run says the rest.
        message: terminalReason(replayed.pointer)?.message ?? pair.message,
        lastReport: pair.reports.get(twin.thread) ?? null,
      }),
      parent,
    });
    results.push(...(await compareChildren(store, children, { ...pair, recorded, replayed })));
  }
  // Children the replay made that have no recorded twin: the workflow now fans out over more.
  const recordedKeys = new Set(recordedChildren.map((child) => key(child, pair.recorded)));
  for (const [childKey, extra] of replayedByKey) {
    if (recordedKeys.has(childKey)) continue;
    const parent = { thread: pair.recorded.pointer.thread, index: extra.parent!.index };
    const reason = `the recording has no child for item ${extra.parent!.index} of this fan-out`;
    const side = { kind: "replayed" } as const;
    results.push(...(await unmatched(store, children, side, extra, parent, reason)));
  }
  return results;
}

/** A parent's children in the order they were made (by time, then item). */
function childrenOf(children: Map<string, ThreadPointer[]>, parent: string): ThreadPointer[] {
  return [...(children.get(parent) ?? [])].sort(
    (a, b) => a.createdAt.localeCompare(b.createdAt) || a.parent!.index - b.parent!.index,
  );
}

/**
 * A child with no twin on the other side, then its own children at any depth: each is a
 * different route, with nothing to compare it with. `side` says which side has it: a recorded
 * child the replay never made, or a child the replay made that nothing recorded.
 */
async function unmatched(
  store: Store,
  children: Map<string, ThreadPointer[]>,
  side: { kind: "recorded"; origin: string } | { kind: "replayed" },
  child: ThreadPointer,
  parent: { thread: string; index: number },
  reason: string,
): Promise<WorkflowTestThread[]> {
  const replayed = side.kind === "replayed";
  const origin = replayed ? "replay" : side.origin;
  const steps = route((await readRecording(store, child.thread, origin)).steps);
  const results: WorkflowTestThread[] = [
    {
      thread: child.thread,
      origin,
      replayThread: replayed ? child.thread : null,
      parent,
      result: "different",
      step: 1,
      reason,
      recorded: replayed ? [] : steps,
      replayed: replayed ? steps : [],
      miss: null,
    },
  ];
  const why = replayed
    ? `the recording has no twin of its parent ${child.thread}`
    : `the replay made no twin of its parent ${child.thread}`;
  for (const grandchild of childrenOf(children, child.thread)) {
    const of = { thread: child.thread, index: grandchild.parent!.index };
    results.push(...(await unmatched(store, children, side, grandchild, of, why)));
  }
  return results;
}
