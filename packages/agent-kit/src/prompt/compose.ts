import type { RolePayload } from "@united-workforce/protocol";
import { type History, renderHistoryEntry } from "../context/history.js";

export interface PromptParts {
  outputFormat: string;
  workflowName: string;
  role: string;
  roleDefinition: RolePayload;
  task: string;
  history: History;
  edgePrompt: string;
}

/**
 * The prompt an agent receives, in a fixed order: the output format first (the deliverable is
 * the first thing the agent sees), the role, the task, what happened since the role last ran,
 * and last the moderator's instruction for this step.
 */
export function composePrompt(parts: PromptParts): string {
  const role = parts.roleDefinition;
  const sections = [parts.outputFormat];
  const goal = [`You are the \`${parts.role}\` role of the \`${parts.workflowName}\` workflow.`];
  if (role.goal?.trim()) goal.push(role.goal.trim());
  sections.push(section("Goal", goal.join("\n\n")));
  if (role.capabilities && role.capabilities.length > 0) {
    sections.push(section("Capabilities", role.capabilities.map((c) => `- ${c}`).join("\n")));
  }
  if (role.procedure?.trim()) sections.push(section("Procedure", role.procedure.trim()));
  if (role.output?.trim()) sections.push(section("Output", role.output.trim()));
  sections.push(section("Task", parts.task.trim()));
  sections.push(section("What happened since", renderHistory(parts.history)));
  sections.push(section("Moderator Instruction", parts.edgePrompt.trim()));
  return `${sections.join("\n\n")}\n`;
}

function section(title: string, body: string): string {
  return `## ${title}\n\n${body}`;
}

function renderHistory(history: History): string {
  if (history.entries.length === 0) return "Nothing yet: this is the first step of the thread.";
  const blocks = history.entries.map(renderHistoryEntry);
  if (history.truncated) {
    blocks.unshift("(Earlier steps are left out to keep this prompt short.)");
  }
  return blocks.join("\n\n");
}
