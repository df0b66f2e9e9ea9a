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
    });
    let hash: string | null = null;
    if (loaded.valid && loaded.definition) {
      const { workflowHash } = await import("./hash.js");
      hash = await workflowHash(loaded.definition);
    }
    const doc: WorkflowValidateDocument = {
      valid: loaded.valid,
      name: loaded.name,
      hash,
      errors: loaded.errors,
      warnings: loaded.warnings,
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
