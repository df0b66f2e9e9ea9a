import type { GuidanceNote, ThreadPointer } from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { isoTime, isUwfError, UwfError } from "@united-workforce/util";
import { cancelledHint } from "../threads/cancelled-hint.js";
import { steersSince } from "../threads/steer.js";

/**
 * Store a changed pointer, compare-and-swap on the revision it was read at: a pointer changed
 * meanwhile by another process (it should hold the lease to) is never overwritten. Every write
 * that moves a thread goes through here.
 */
export async function writePointer(
  store: Store,
  pointer: ThreadPointer,
  /** The notes the step being stored took: a steer that wrote one meanwhile is not redone. */
  taken: readonly GuidanceNote[] = [],
): Promise<ThreadPointer> {
  const updated = { ...pointer, updatedAt: isoTime() };
  const stored = await store.threads.swap(updated, pointer.rev ?? 0);
  if (stored !== null) return stored;
  const now = await store.threads.get(pointer.thread).catch(() => null);
  // Only `thread steer` wrote meanwhile: keep its notes for the next step, and write again.
  const steered = now === null ? null : steersSince(pointer, now);
  if (now !== null && steered !== null) {
    const left = steered.filter((note) => !taken.some((t) => t.rev === note.rev));
    const guidance = [...(pointer.guidance ?? []), ...left];
    const again: ThreadPointer = { ...pointer, guidance, rev: now.rev ?? 0 };
    if (guidance.length === 0) delete again.guidance;
    return writePointer(store, again, taken);
  }
  if (now?.status === "cancelled") {
    throw new UwfError(
      "THREAD_CONFLICT",
      `thread ${pointer.thread} was cancelled while this exec ran; nothing more was written to it`,
      { hint: cancelledHint(now), details: { thread: pointer.thread } },
    );
  }
  throw new UwfError("THREAD_CONFLICT", `thread ${pointer.thread} was changed by another process`, {
    hint: `nothing was overwritten; check it with \`uwf thread show ${pointer.thread}\` and try again`,
    details: { thread: pointer.thread },
  });
}

/**
 * Store a change that may be dropped (the agent an interrupted step was run with): when
 * another process changed the pointer meanwhile (`thread cancel`), its version stands.
 */
export async function writeUnlessChanged(
  store: Store,
  pointer: ThreadPointer,
): Promise<ThreadPointer> {
  try {
    return await writePointer(store, pointer);
  } catch (error) {
    if (isUwfError(error) && error.code === "THREAD_CONFLICT") return pointer;
    throw error;
  }
}

/**
 * Fast-forward a thread to another version of itself (a bundle's pointer, checked by `thread
 * import`), compare-and-swap on the revision the local pointer was read at; null when another
 * process changed it meanwhile. The bundle's times and revision stand: nothing is restamped.
 */
export function fastForwardPointer(
  store: Store,
  pointer: ThreadPointer,
  readAtRev: number,
): Promise<ThreadPointer | null> {
  return store.threads.swap(pointer, readAtRev);
}
