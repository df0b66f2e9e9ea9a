import type { SchemaMap } from "./schema-shape.js";

/**
 * Guards (issue 9): `maxSteps` bounds the steps of a thread's chain, a role's `maxVisits` the
 * steps that role may take in it. Reaching one suspends the thread before the next step.
 */
export const GUARD_ROLE_KEYS = ["maxVisits"];

/** Check the workflow's `maxSteps`; returns it when well formed. */
export function checkMaxStepsShape(raw: unknown, errors: string[]): number | null {
  if (raw === undefined) return null;
  if (isCount(raw)) return raw;
  errors.push(
    `"maxSteps" must be a whole number of steps, at least 1 (found ${JSON.stringify(raw)}); the thread suspends before a step once its chain holds that many`,
  );
  return null;
}

/** Check a role's `maxVisits`; returns it when well formed. */
export function checkMaxVisitsShape(
  role: string,
  value: SchemaMap,
  errors: string[],
): number | null {
  const raw = value.maxVisits;
  if (raw === undefined) return null;
  if (isCount(raw)) return raw;
  errors.push(
    `role "${role}": "maxVisits" must be a whole number of visits, at least 1 (found ${JSON.stringify(raw)}); the thread suspends before the role's next step once it ran that many times`,
  );
  return null;
}

/**
 * A role's `maxVisits` at or above the workflow's `maxSteps` is never what stops the thread:
 * the step guard does first. A warning, not an error: the workflow still runs as written.
 */
export function guardWarnings(
  maxSteps: number | null,
  maxVisits: ReadonlyMap<string, number>,
  warnings: string[],
): void {
  if (maxSteps === null) return;
  for (const [role, visits] of maxVisits) {
    if (visits >= maxSteps) {
      warnings.push(
        `role "${role}": maxVisits ${visits} is not below the workflow's maxSteps ${maxSteps}, so maxSteps stops the thread first`,
      );
    }
  }
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 1;
}
