import { type JsonSchema, SUSPEND, suspendOutputSchema } from "@united-workforce/protocol";

/**
 * The schema of a `$SUSPEND` output. Any role may answer `$status: $SUSPEND` with a `reason`,
 * whatever its own schema says, so such an output is stored typed by this schema (registered
 * with `putSchema`, so its hash is stable) instead of the role's. The CLI accepts an output of
 * this type for every role.
 */
export const SUSPEND_OUTPUT_SCHEMA: JsonSchema = suspendOutputSchema as unknown as JsonSchema;

export function isSuspendStatus(value: unknown): boolean {
  return value === SUSPEND;
}
