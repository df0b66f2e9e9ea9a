import type { StepPayload } from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";

/** Steps from `from` back toward the StartNode, newest first; stop iterating to stop reading. */
export function* walkBack(
  cas: Cas,
  from: string | null,
): Generator<{ hash: string; step: StepPayload }> {
  let hash = from;
  while (hash !== null) {
    const step = cas.getPayload<StepPayload>(hash, "step");
    yield { hash, step };
    hash = step.prev;
  }
}
