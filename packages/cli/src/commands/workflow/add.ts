import { resolve } from "node:path";
import type { WorkflowPayload } from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";
import { warningLines, workflowDocument } from "./shared.js";

export default defineCommand({
  path: ["workflow", "add"],
  summary: "validate a workflow file, store it and point its name at it (keeps history)",
  args: [{ name: "file", description: "workflow YAML file" }],
  examples: ["uwf workflow add examples/solve-issue.yaml"],
  async run(ctx, [file]) {
    const { validatorCacheDir } = await import("@united-workforce/store");
    const { loadAndValidate, materialiseWorkflow, workflowInvalidError } = await import(
      "@united-workforce/engine"
    );
    const loaded = await loadAndValidate(resolve(ctx.cwd, file!), {
      validatorCacheDir: validatorCacheDir(ctx.home),
      store: () => ctx.store(),
    });
    if (!loaded.valid || !loaded.definition)
      throw workflowInvalidError(loaded.path, loaded.errors, loaded.warnings, loaded.problems);
    const { cas, registry } = await ctx.store();
    const hash = await materialiseWorkflow(cas, loaded.definition);
    const { entry, changed } = await registry.add(loaded.definition.name, hash);
    ctx.events.emit("workflow.add", { workflow: entry.name, hash, changed });
    const payload = await cas.getPayload<WorkflowPayload>(hash, "workflow");
    const doc = {
      ...workflowDocument(hash, payload, { warnings: loaded.warnings, source: loaded.path }),
      changed,
      versions: entry.history.length,
    };
    return result(doc, (d) =>
      [
        d.changed
          ? `added ${d.name} ${d.hash} (version ${d.versions})`
          : `${d.name} is unchanged (${d.hash})`,
        ...warningLines(d.warnings),
      ].join("\n"),
    );
  },
});
