import type { ThreadDiffDocument, ThreadDiffSide } from "@united-workforce/protocol";
import { costFact, costText, durationText, stepCost, tokensFact } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["thread", "diff"],
  summary: "compare two threads of one fork family: where they part, then each side's steps",
  description:
    "Finds the last step both chains hold, then lists each thread's own steps after it with their `$status`, output fields and usage. Threads that began from different starts share nothing and are refused.",
  args: [
    { name: "a", type: "thread", description: "thread id" },
    { name: "b", type: "thread", description: "thread id" },
  ],
  examples: ["uwf thread diff 01JDA… 01JDB…", "uwf thread diff 01JDA… 01JDB… --format json"],
  async run(ctx, [a, b]) {
    const { diffThreads } = await import("@united-workforce/engine");
    const doc = await diffThreads(await ctx.store(), a!, b!);
    return result(doc, renderDiff);
  },
});

export function renderDiff(doc: ThreadDiffDocument): string {
  const lines = [
    doc.common === null
      ? "the threads share no step: they part at their first step"
      : `common prefix: ${doc.commonSteps} step${doc.commonSteps === 1 ? "" : "s"}, up to ${doc.common}; they part at step ${doc.commonSteps + 1}`,
  ];
  for (const side of doc.sides) lines.push("", ...renderSide(side));
  return lines.join("\n");
}

function renderSide(side: ThreadDiffSide): string[] {
  const head = `${side.thread} (${side.status}): ${side.steps.length} step${side.steps.length === 1 ? "" : "s"} of its own, cost ${costText(side.usage)}`;
  if (side.steps.length === 0) return [head, "  (nothing after the common prefix)"];
  const lines = [head];
  for (const step of side.steps) {
    lines.push(
      `  ${step.number}  ${step.hash}  ${step.role} → ${step.status}  (${step.agent}, ${durationText(step.durationMs)}, ${tokensFact(step.usage)}, ${costFact(stepCost(step.usage))})`,
    );
    for (const [key, value] of Object.entries(step.output)) {
      if (key === "$status") continue;
      lines.push(`      ${key}: ${oneLine(value)}`);
    }
  }
  return lines;
}

/** A field's value on one line, cut to keep the comparison scannable. */
function oneLine(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 120 ? `${flat.slice(0, 117)}...` : flat;
}
