import {
  type MaterialiseStore,
  materialiseWorkflow,
  type WorkflowDefinition,
} from "@united-workforce/engine";
import { BUILTIN_SCHEMAS, type BuiltinNodeKind, SCHEMA_TYPE } from "@united-workforce/protocol";
import { canonicalJson, hashBytes } from "@united-workforce/util";

const nodeHash = (type: string, payload: unknown): string =>
  hashBytes(canonicalJson({ type, payload }));

/**
 * The hash `workflow add` would give a definition, computed without writing anything, so
 * validate stays read-only. (Whether the role schemas compile is checked by loadAndValidate.)
 */
export function workflowHash(definition: WorkflowDefinition): Promise<string> {
  const dryRun: MaterialiseStore = {
    putSchema: async (schema) => nodeHash(SCHEMA_TYPE, schema),
    put: async (type, payload) => nodeHash(type, payload),
    builtin: (kind: BuiltinNodeKind) => nodeHash(SCHEMA_TYPE, BUILTIN_SCHEMAS[kind]),
  };
  return materialiseWorkflow(dryRun, definition);
}
