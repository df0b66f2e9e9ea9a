import { BUILTIN_SCHEMAS, type BuiltinNodeKind, SCHEMA_TYPE } from "@united-workforce/protocol";
import { canonicalJson, hashBytes } from "@united-workforce/util";
import { type MaterialiseStore, materialiseWorkflow } from "../../workflow/materialise.js";
import type { WorkflowDefinition } from "../../workflow/validate.js";

const nodeHash = (type: string, payload: unknown): string =>
  hashBytes(canonicalJson({ type, payload }));

/**
 * The hash `workflow add` would give a definition, computed without writing anything, so
 * validate stays read-only. (Whether the role schemas compile is checked by loadAndValidate.)
 */
export function workflowHash(definition: WorkflowDefinition): string {
  const dryRun: MaterialiseStore = {
    putSchema: (schema) => nodeHash(SCHEMA_TYPE, schema),
    put: (type, payload) => nodeHash(type, payload),
    builtin: (kind: BuiltinNodeKind) => nodeHash(SCHEMA_TYPE, BUILTIN_SCHEMAS[kind]),
  };
  return materialiseWorkflow(dryRun, definition);
}
