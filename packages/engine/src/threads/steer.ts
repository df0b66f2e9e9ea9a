import type { GuidanceNote, ThreadPointer } from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { isoTime, UwfError } from "@united-workforce/util";
import type { PlannedStep } from "../steps/planned-step.js";
import { cancelledHint } from "./cancelled-hint.js";
import { GUIDANCE_BLOCK } from "./guidance-block.js";

export { GUIDANCE_HEADING, recordedGuidance, splitGuidance } from "./guidance-block.js";

/**
 * `thread steer`: leave a guidance note for the thread's next step. Only the pointer changes
 * (compare-and-swap); when an exec moves the head meanwhile, the note is added again to what
 * it wrote, so no note and no step is lost.
 */
export async function steerThread(
  store: Store,
  thread: string,
  text: string,
): Promise<{ pointer: ThreadPointer; note: GuidanceNote }> {
  if (text.trim() === "") {
    throw new UwfError("USAGE", "the guidance is empty", { hint: 'Say what to do: -p "…"' });
  }
  for (;;) {
    const pointer = await store.threads.get(thread);
    if (pointer.status === "completed" || pointer.status === "cancelled") {
      throw new UwfError(
        "THREAD_STATE",
        `thread ${thread} is ${pointer.status}; no step will take the guidance`,
        {
          hint:
            pointer.status === "cancelled"
              ? cancelledHint(pointer)
              : `Fork a step to go on from it: uwf step fork <step>`,
        },
      );
    }
    const rev = pointer.rev ?? 0;
    const note: GuidanceNote = { text, at: isoTime(), rev: rev + 1 };
    const steered = {
      ...pointer,
      guidance: [...(pointer.guidance ?? []), note],
      updatedAt: note.at,
    };
    const stored = await store.threads.swap(steered, rev);
    if (stored !== null) return { pointer: stored, note };
  }
}

/** The step with the thread's pending guidance added to its prompt, and the notes it takes. */
export function withGuidance(plan: PlannedStep, pointer: ThreadPointer): PlannedStep {
  const notes = pointer.guidance ?? [];
  if (notes.length === 0) return plan;
  const added = notes.map((note) => `${GUIDANCE_BLOCK}${note.text}`).join("");
  return { ...plan, prompt: `${plan.prompt}${added}`, guidance: notes };
}

/** The pending notes left once a step that took `taken` is stored. */
export function guidanceLeft(
  pointer: ThreadPointer,
  taken: readonly GuidanceNote[] | undefined,
): GuidanceNote[] | undefined {
  const left = (pointer.guidance ?? []).filter(
    (note) => !(taken ?? []).some((t) => t.rev === note.rev),
  );
  return left.length === 0 ? undefined : left;
}

/**
 * The notes steers added after `read` was read, when steers are all that changed the pointer
 * since (each one raises the revision by one and adds one note stamped with it); else null.
 */
export function steersSince(read: ThreadPointer, now: ThreadPointer): GuidanceNote[] | null {
  const readRev = read.rev ?? 0;
  const added = (now.guidance ?? []).filter((note) => note.rev > readRev);
  if (added.length === 0 || added.length !== (now.rev ?? 0) - readRev) return null;
  return added;
}
