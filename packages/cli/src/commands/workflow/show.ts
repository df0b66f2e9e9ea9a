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
    const inputs =
      found.payload.inputs === undefined
        ? null
        : ((await cas.get(found.payload.inputs)).payload as Record<string, unknown>);
    const doc = {
      ...workflowDocument(found.hash, found.payload, {
        warnings: found.warnings,
        source: found.source,
      }),
      path: found.path,
      graph: found.payload.graph,
      roleDetails: found.payload.roles,
      inputs,
      ...(found.payload.on === undefined ? {} : { on: found.payload.on }),
    };
    // A fan-out names its child workflow by hash: the text shows its name too.
    const children = new Map<string, string>();
    for (const edges of Object.values(found.payload.graph)) {
      for (const edge of Object.values(edges)) {
        const child = edge.fanout?.workflow;
        if (child === undefined || children.has(child)) continue;
        const payload = (await cas.has(child))
          ? await cas.getPayload<WorkflowPayload>(child, "workflow")
          : null;
        children.set(child, payload?.name ?? "(not in the store)");
      }
    }
    return result(doc, (d) =>
      renderWorkflow(d.name, d.hash, found.payload, d.inputs, d.warnings, children),
    );
  },
});

function renderWorkflow(
  name: string,
  hash: string,
  payload: WorkflowPayload,
  inputs: Record<string, unknown> | null,
  warnings: string[],
  children: ReadonlyMap<string, string>,
): string {
  const lines = [`${name} (${hash})`];
  if (payload.description) lines.push(payload.description);
  if (inputs !== null) lines.push("", "inputs:", ...inputLines(inputs));
  const github = payload.on?.github;
  if (github !== undefined) {
    lines.push("", "triggers:", `  github: ${github.events.join(", ")}`);
    for (const [input, template] of Object.entries(github.inputs ?? {})) {
      lines.push(`    ${input} ← ${template}`);
    }
    lines.push(`    key: ${github.key ?? "the delivery id, else the payload's hash"}`);
  }
  lines.push("", "roles:");
  for (const [role, def] of Object.entries(payload.roles)) {
    const join = def.join === true ? " (join)" : "";
    lines.push(`  ${role}${join}${def.description ? ` — ${def.description}` : ""}`);
  }
  lines.push("", "graph:");
  for (const [from, edges] of Object.entries(payload.graph)) {
    for (const [status, edge] of Object.entries(edges)) {
      lines.push(
        `  ${from} --${status}--> ${edge.role}${edge.location ? ` @ ${edge.location}` : ""}`,
      );
      const fanout = edge.fanout;
      if (fanout !== undefined) {
        const facts = [
          fanout.over === undefined ? "one child" : `one child per item of ${fanout.over}`,
          `running ${children.get(fanout.workflow) ?? "?"} (${fanout.workflow})`,
          `concurrency ${fanout.concurrency ?? 4}`,
          `failure ${fanout.failure ?? "all"}`,
        ];
        lines.push(`      fan-out: ${facts.join(", ")}`);
      }
    }
  }
  lines.push(...warningLines(warnings));
  return lines.join("\n");
}

/** `  issue: integer, required — The issue number.` for each declared input. */
function inputLines(schema: Record<string, unknown>): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(schema.required) ? schema.required : [];
  const names = Object.keys(properties);
  if (names.length === 0) return ["  (no named inputs)"];
  return names.map((name) => {
    const property = properties[name] ?? {};
    const type = Array.isArray(property.type) ? property.type.join("|") : property.type;
    const facts = [typeof type === "string" ? type : "any"];
    if (required.includes(name)) facts.push("required");
    const description =
      typeof property.description === "string" ? ` — ${property.description}` : "";
    return `  ${name}: ${facts.join(", ")}${description}`;
  });
}
