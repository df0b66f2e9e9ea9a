import type { StartPayload, StepPayload, Usage } from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";
import {
  diffStatText,
  durationText,
  groupDigits,
  isoTime,
  tokensFact,
  usdText,
} from "@united-workforce/util";
import { stringify as stringifyYaml } from "yaml";
import { recordedGuidance } from "../threads/guidance-block.js";

/**
 * One step as markdown for people (`uwf thread read`, `uwf step read`): a heading with the
 * role and status, a comment line of facts (the hash, the agent, when, how long, how many
 * attempts when extraction needed repairs, and the usage the agent reported), what it changed
 * in its git working tree (`3 files changed, +12 −4`, when it ran in one), the instruction
 * it was given, its frontmatter and its body. uwf's one transcript renderer.
 */
export async function renderStep(
  cas: Cas,
  hash: string,
  step: StepPayload,
  label?: string,
): Promise<string> {
  const output = await cas.getPayload<Record<string, unknown>>(step.output);
  const body = (await cas.getText(step.body)).trim();
  const status = typeof output.$status === "string" ? output.$status : "?";
  const facts = [
    `step ${hash}`,
    `agent ${step.agent}`,
    isoTime(step.startedAtMs),
    durationText(step.completedAtMs - step.startedAtMs),
    ...(step.attempts > 1 ? [`${step.attempts} attempts`] : []),
    ...usageFacts(step.usage),
  ];
  const live = recordedGuidance((await cas.get(step.detail)).payload);
  return [
    `## ${label ? `${label} · ` : ""}${step.role} → ${status}`,
    `<!-- ${facts.join(" · ")} -->`,
    // What it changed in its git working tree (docs/receipts.md).
    ...(step.git ? [diffStatText(step.git.diffStat)] : []),
    "",
    quote(step.edgePrompt),
    "",
    ...live.flatMap((note) => [
      `_Guidance delivered while it ran (after turn ${note.afterTurn}, ${note.deliveredAt}):_`,
      "",
      quote(note.text),
      "",
    ]),
    "```yaml",
    stringifyYaml(output).trimEnd(),
    "```",
    ...(body ? ["", body] : []),
    "",
  ].join("\n");
}

/** What the agent reported, e.g. `1,200 in / 80 out tokens · 900 cached · $0.0132`; unknown is left out. */
function usageFacts(usage: Usage): string[] {
  const facts: string[] = [];
  if (usage.inputTokens !== null || usage.outputTokens !== null) facts.push(tokensFact(usage));
  if (usage.cacheReadTokens) facts.push(`${groupDigits(usage.cacheReadTokens)} cached`);
  if (usage.cacheWriteTokens) facts.push(`${groupDigits(usage.cacheWriteTokens)} cache written`);
  if (usage.costUsd !== null) facts.push(usdText(usage.costUsd));
  return facts;
}

export function renderStart(start: StartPayload): string {
  return ["## Task", "", renderTask(start), ""].join("\n");
}

/**
 * A thread's task as agents and readers see it: the start prompt, then the thread's typed
 * inputs (when its workflow declares some) as a YAML block, values exactly as validated.
 */
export function renderTask(start: StartPayload): string {
  const task = start.prompt.trim();
  if (start.inputs === undefined) return task;
  const names = Object.keys(start.inputs);
  const inputs =
    names.length === 0
      ? "None were given."
      : `\`\`\`yaml\n${stringifyYaml(start.inputs).trimEnd()}\n\`\`\``;
  return `${task}\n\n### Inputs\n\n${inputs}`;
}

/** A markdown blockquote; blank lines become a bare `>` so no line ends in whitespace. */
function quote(text: string): string {
  return text
    .trim()
    .split("\n")
    .map((line) => (line.trim() === "" ? ">" : `> ${line}`))
    .join("\n");
}
