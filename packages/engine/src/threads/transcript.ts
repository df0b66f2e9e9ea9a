import type { StartPayload, StepPayload } from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";
import { stringify as stringifyYaml } from "yaml";

/** One step as markdown: who ran, what they were asked, their frontmatter and body. */
export async function renderStep(
  cas: Cas,
  hash: string,
  step: StepPayload,
  label?: string,
): Promise<string> {
  const output = await cas.getPayload<Record<string, unknown>>(step.output);
  const body = (await cas.getText(step.body)).trim();
  const status = typeof output.$status === "string" ? output.$status : "?";
  const at = new Date(step.startedAtMs).toISOString();
  return [
    `## ${label ? `${label} · ` : ""}${step.role} → ${status}`,
    `<!-- step ${hash} · agent ${step.agent} · ${at} · ${step.completedAtMs - step.startedAtMs} ms -->`,
    "",
    quote(step.edgePrompt),
    "",
    "```yaml",
    stringifyYaml(output).trimEnd(),
    "```",
    ...(body ? ["", body] : []),
    "",
  ].join("\n");
}

export function renderStart(start: StartPayload): string {
  return ["## Task", "", start.prompt.trim(), ""].join("\n");
}

/** A markdown blockquote; blank lines become a bare `>` so no line ends in whitespace. */
function quote(text: string): string {
  return text
    .trim()
    .split("\n")
    .map((line) => (line.trim() === "" ? ">" : `> ${line}`))
    .join("\n");
}
