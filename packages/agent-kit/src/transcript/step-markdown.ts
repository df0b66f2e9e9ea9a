import type { Hash, StepPayload, Usage } from "@united-workforce/protocol";
import { STATUS_FIELD } from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";
import { stringify as stringifyYaml } from "yaml";
import { isSchemaObject } from "../schema/shape.js";

/** A step with its output and body loaded: what a transcript shows. */
export interface StepView {
  hash: Hash;
  role: string;
  status: string | null;
  output: Record<string, unknown>;
  body: string;
  agent: string;
  edgePrompt: string;
  startedAtMs: number;
  completedAtMs: number;
  usage: Usage;
  attempts: number;
  prev: Hash | null;
}

export async function readStepView(cas: Cas, hash: Hash): Promise<StepView> {
  const step = await cas.getPayload<StepPayload>(hash, "step");
  const payload = (await cas.get(step.output)).payload;
  const output = isSchemaObject(payload) ? payload : {};
  const status = output[STATUS_FIELD];
  return {
    hash,
    role: step.role,
    status: typeof status === "string" ? status : null,
    output,
    body: await cas.getText(step.body),
    agent: step.agent,
    edgePrompt: step.edgePrompt,
    startedAtMs: step.startedAtMs,
    completedAtMs: step.completedAtMs,
    usage: step.usage,
    attempts: step.attempts,
    prev: step.prev,
  };
}

/**
 * One step as markdown for people (`uwf thread read`): a heading with the role and status, a
 * line of facts, the instruction it was given, its output fields as YAML and its body.
 */
export function renderStepMarkdown(view: StepView, options: { index?: number } = {}): string {
  const number = options.index === undefined ? "" : `${options.index}. `;
  const status = view.status === null ? "" : ` · \`${STATUS_FIELD}: ${view.status}\``;
  const facts = [
    view.agent,
    new Date(view.startedAtMs).toISOString(),
    `${view.completedAtMs - view.startedAtMs} ms`,
    view.attempts > 1 ? `${view.attempts} attempts` : null,
    `step ${view.hash}`,
  ].filter((fact) => fact !== null);
  const parts = [`## ${number}${view.role}${status}`, `_${facts.join(" · ")}_`];
  if (view.edgePrompt.trim()) {
    parts.push(
      view.edgePrompt
        .trim()
        .split("\n")
        .map((line) => `> ${line}`)
        .join("\n"),
    );
  }
  const fields = Object.fromEntries(
    Object.entries(view.output).filter(([name]) => name !== STATUS_FIELD),
  );
  if (Object.keys(fields).length > 0)
    parts.push(`\`\`\`yaml\n${stringifyYaml(fields).trimEnd()}\n\`\`\``);
  if (view.body.trim()) parts.push(view.body.trim());
  return parts.join("\n\n");
}
