import type { JsonSchema } from "@united-workforce/protocol";
import { Cas, type CasBackend } from "@united-workforce/store";
import { isUwfError } from "@united-workforce/util";
import { frontmatterNotCompilable } from "./messages.js";
import type { WorkflowDefinition } from "./validate.js";

/** A store that keeps nothing: compiling schemas through it writes no file. */
const discard: CasBackend = {
  read: () => null,
  write: () => true,
  has: () => false,
  remove: () => {},
  list: () => [],
  locate: (hash) => `(not stored) ${hash}`,
};

/**
 * Every role whose frontmatter ajv cannot compile, as validation errors. Checked before anything
 * is stored, so `validate` and `add` agree and a refused `add` leaves no schema node behind.
 */
export function schemaProblems(
  definition: WorkflowDefinition,
  validatorCacheDir?: string,
): string[] {
  // Compiled validators may still be cached: they are a cache, not stored state, and they spare
  // the next validate of an unchanged schema the compiler's start-up.
  const cas = new Cas(discard, validatorCacheDir === undefined ? {} : { validatorCacheDir });
  const problems: string[] = [];
  for (const [role, { frontmatter }] of Object.entries(definition.roles)) {
    try {
      cas.putSchema(frontmatter as JsonSchema);
    } catch (error) {
      if (!isUwfError(error) || error.code !== "SCHEMA_INVALID") throw error;
      problems.push(frontmatterNotCompilable(role, error.message));
    }
  }
  return problems;
}
