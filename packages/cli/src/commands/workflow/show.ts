import type { WorkflowPayload } from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";
import { warningLines, workflowDocument } from "./shared.js";

export default defineCommand({
  path: ["workflow", "show"],
  summary: "show a workflow's roles and graph",
  args: [
    { name: "workflow", description: "workflow hash, file, .workflows/ name or registered name" },
  ],
  examples: [
    "uwf workflow show solve-issue",
    "uwf workflow show examples/hello.yaml --format json",
  ],
  async run(ctx, [ref]) {
    const { validatorCacheDir } = await import("@united-workforce/store");
    const { resolveWorkflow } = await import("@united-workforce/engine");
    const { cas, registry } = await ctx.store();
    const found = await resolveWorkflow(ref!, {
      cwd: ctx.cwd,
      cas,
      registry,
      validatorCacheDir: validatorCacheDir(ctx.home),
    });
    const doc = {
      ...workflowDocument(found.hash, found.payload, {
        warnings: found.warnings,
        source: found.source,
      }),
      path: found.path,
      graph: found.payload.graph,
      roleDetails: found.payload.roles,
    };
    return result(doc, (d) => renderWorkflow(d.name, d.hash, found.payload, d.warnings));
  },
});

function renderWorkflow(
  name: string,
  hash: string,
  payload: WorkflowPayload,
  warnings: string[],
): string {
  const lines = [`${name} (${hash})`];
  if (payload.description) lines.push(payload.description);
  lines.push("", "roles:");
  for (const [role, def] of Object.entries(payload.roles)) {
    lines.push(`  ${role}${def.description ? ` — ${def.description}` : ""}`);
  }
  lines.push("", "graph:");
  for (const [from, edges] of Object.entries(payload.graph)) {
    for (const [status, edge] of Object.entries(edges)) {
      lines.push(
        `  ${from} --${status}--> ${edge.role}${edge.location ? ` @ ${edge.location}` : ""}`,
      );
    }
  }
  lines.push(...warningLines(warnings));
  return lines.join("\n");
}
