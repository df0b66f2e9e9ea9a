import { type GuidanceNote, isPlainObject } from "@united-workforce/protocol";

// How a guidance note reads in a step's prompt: its own module, so an adapter's process
// (agent-kit, through the engine's `adapter` entry) counts the notes its prompt carries without
// loading the steer command's code.

/** The heading each guidance note has in the prompt of the step that takes it. */
export const GUIDANCE_HEADING = "Guidance from a human";

export const GUIDANCE_BLOCK = `\n\n## ${GUIDANCE_HEADING}\n`;

/**
 * A recorded prompt taken apart again: the prompt before the guidance blocks `withGuidance`
 * added at its end, and their notes' texts (a replay steers its thread with them).
 */
export function splitGuidance(prompt: string): { prompt: string; notes: string[] } {
  const at = prompt.indexOf(GUIDANCE_BLOCK);
  if (at === -1) return { prompt, notes: [] };
  return {
    prompt: prompt.slice(0, at),
    notes: prompt.slice(at + GUIDANCE_BLOCK.length).split(GUIDANCE_BLOCK),
  };
}

/** A note an agent got while its step ran, as the step's detail records it. */
export interface RecordedGuidance extends GuidanceNote {
  deliveredAt: string;
  /** How many of the step's model turns came before it. */
  afterTurn: number;
}

/**
 * The notes a step's detail records as delivered to its agent while it ran (`guidance`, each
 * with when and after how many turns), in the order the agent got them.
 */
export function recordedGuidance(detail: unknown): RecordedGuidance[] {
  const recorded = isPlainObject(detail) ? (detail as { guidance?: unknown }).guidance : undefined;
  if (!Array.isArray(recorded)) return [];
  return recorded.flatMap((note: unknown) => {
    if (!isPlainObject(note)) return [];
    const { text, at, rev, deliveredAt, afterTurn } = note as Record<string, unknown>;
    if (typeof text !== "string" || typeof at !== "string" || typeof rev !== "number") return [];
    return [
      {
        text,
        at,
        rev,
        deliveredAt: typeof deliveredAt === "string" ? deliveredAt : at,
        afterTurn: typeof afterTurn === "number" ? afterTurn : 0,
      },
    ];
  });
}
