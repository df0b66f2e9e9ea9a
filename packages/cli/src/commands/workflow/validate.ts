import { resolve } from "node:path";
import { ExitCode, type WorkflowValidateDocument } from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";
import { warningLines } from "./shared.js";

export default defineCommand({
  path: ["workflow", "validate"],
  summary: "check a workflow file and list every problem (exit 3 when invalid)",
  args: [{ name: "file", description: "workflow YAML file" }],
  examples: ["uwf workflow validate examples/solve-issue.yaml"],
  async run(ctx, [file]) {
    const { loadAndValidate } = await import("@united-workforce/engine");
    const { validatorCacheDir } = await import("@united-workforce/store");
    const loaded = await loadAndValidate(resolve(ctx.cwd, file!), {
      validatorCacheDir: validatorCacheDir(ctx.home),
      // Opened only when the workflow fans out to another workflow (a name or hash to find).
      store: () => ctx.store(),
    });
    let hash: string | null = null;
    const warnings = [...loaded.warnings];
    if (loaded.valid && loaded.definition) {
      const { workflowHash } = await import("./hash.js");
      hash = await workflowHash(loaded.definition);
      // Only a `.workflows/` copy can shadow the registry: other files need no store.
      const { shadowWarning, workflowsDirOf } = await import("@united-workforce/engine");
      if (workflowsDirOf(loaded.path) !== null) {
        const { registry } = await ctx.store();
        const shadow = await shadowWarning(registry, loaded.path, loaded.definition.name, hash);
        if (shadow !== null) warnings.push(shadow);
      }
    }
    const doc: WorkflowValidateDocument = {
      valid: loaded.valid,
      name: loaded.name,
      hash,
      errors: loaded.errors,
      warnings,
      problems: loaded.problems,
      source: loaded.path,
    };
    return result(
      doc,
      (d) =>
        [
          d.valid ? `✓ ${d.name} is valid (${d.hash})` : `✗ ${d.source} is invalid:`,
          ...d.errors.map((e) => `  - ${e}`),
          ...warningLines(d.warnings),
        ].join("\n"),
      doc.valid ? ExitCode.ok : ExitCode.invalid,
    );
  },
});
