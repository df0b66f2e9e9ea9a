import type { GuidanceNote, SuspendInfo, ThreadPointer } from "@united-workforce/protocol";

/** What runs next: a role with its prompt, where the new step links, and how it was chosen. */
export interface PlannedStep {
  role: string;
  prompt: string;
  location: string | null;
  prev: string | null;
  /** Poke: the new step replaces the head instead of following it. */
  replaceHead: boolean;
  /** The `thread steer` notes its prompt carries: storing the step consumes them. */
  guidance?: readonly GuidanceNote[];
}

/** What a new step's `prev` is when it follows the head: null while the head is the StartNode. */
export function prevOf(pointer: ThreadPointer): string | null {
  return pointer.head === pointer.start ? null : pointer.head;
}

/**
 * What a suspension keeps of the step it stopped, so `thread resume` runs that step again:
 * its prompt and place, and, for a poke's, that it replaces the head (the head's status leads
 * elsewhere: following the head would break the route).
 */
export function rerunOf(
  plan: PlannedStep,
): Pick<SuspendInfo, "prompt" | "location" | "replaceHead"> {
  return {
    prompt: plan.prompt,
    location: plan.location,
    ...(plan.replaceHead ? { replaceHead: true } : {}),
  };
}
