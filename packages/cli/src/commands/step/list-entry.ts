import type { StepListEntry, StepPayload } from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";
import { isoTime } from "@united-workforce/util";

/** A step as `step list` (and the dashboard's timeline) shows it, with its output, read once. */
export async function stepListEntry(
  cas: Pick<Cas, "getPayload">,
  hash: string,
  step: StepPayload,
): Promise<{ entry: StepListEntry; output: Record<string, unknown> }> {
  const output = await cas.getPayload<Record<string, unknown>>(step.output);
  const entry: StepListEntry = {
    hash,
    role: step.role,
    status: typeof output.$status === "string" ? output.$status : "",
    agent: step.agent,
    startedAt: isoTime(step.startedAtMs),
    durationMs: step.completedAtMs - step.startedAtMs,
    usage: step.usage,
  };
  if (step.git) {
    const { files, insertions, deletions } = step.git.diffStat;
    entry.diffStat = { files, insertions, deletions };
  }
  return { entry, output };
}
