import type { JsonSchema } from "@united-workforce/protocol";
import { Cas, type CasBackend } from "@united-workforce/store";
import { isUwfError } from "@united-workforce/util";
import { frontmatterNotCompilable } from "./messages.js";
import type { WorkflowDefinition } from "./validate.js";

/** A store that keeps nothing: compiling schemas through it writes no file. */
const discard: CasBackend = {
  read: async () => null,
  write: async () => new Set(),
  has: async () => false,
  withPrefix: async () => [],
  remove: async () => {},
  list: async function* () {},
  locate: (hash) => `(not stored) ${hash}`,
};

/** A CAS that compiles and hashes but keeps nothing (validate, `workflow hash`). */
export function discardingCas(validatorCacheDir?: string): Cas {
  return new Cas(discard, validatorCacheDir === undefined ? {} : { validatorCacheDir });
}

/**
 * Every role whose frontmatter ajv cannot compile, as validation errors. Checked before anything
 * is stored, so `validate` and `add` agree and a refused `add` leaves no schema node behind.
 */
export async function schemaProblems(
  definition: WorkflowDefinition,
  validatorCacheDir?: string,
): Promise<string[]> {
  // Compiled validators may still be cached: they are a cache, not stored state, and they spare
  // the next validate of an unchanged schema the compiler's start-up.
  const cas = discardingCas(validatorCacheDir);
  const problems: string[] = [];
  for (const [role, { frontmatter }] of Object.entries(definition.roles)) {
    try {
      await cas.putSchema(frontmatter as JsonSchema);
    } catch (error) {
      if (!isUwfError(error) || error.code !== "SCHEMA_INVALID") throw error;
      problems.push(frontmatterNotCompilable(role, error.message));
    }
  }
  return problems;
}
