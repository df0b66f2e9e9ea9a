import {
  isPlainObject,
  matchesSchema,
  schemaMismatches,
  type ThreadPointer,
  threadPointerSchema,
} from "@united-workforce/protocol";

/** A pointer with many problems names this many, and counts the rest. */
const PROBLEMS_NAMED = 3;

/**
 * Parse a pointer file, or say what is wrong with it. Checked by protocol's own schema check
 * rather than ajv: `thread list` reads thousands of these, and loading ajv would cost more
 * than reading them all.
 */
export function parsePointer(
  text: string,
  id: string,
): { pointer: ThreadPointer } | { problem: string } {
  if (text.trim() === "") return { problem: "the file is empty" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `not JSON (${(error as Error).message})` };
  }
  const problem = pointerProblem(value, id);
  return problem === null ? { pointer: value as ThreadPointer } : { problem };
}

/**
 * What is wrong with a pointer's value (null: nothing): everything `threadPointerSchema` says,
 * and that it is the pointer of thread `id`. `thread import` checks a bundle's pointers with it
 * before it writes one.
 */
export function pointerProblem(value: unknown, id: string): string | null {
  if (!isPlainObject(value)) return "not a JSON object";
  if (value.thread !== id) return `it names thread ${JSON.stringify(value.thread)}, not ${id}`;
  if (matchesSchema(threadPointerSchema, value)) return null;
  const problems = schemaMismatches(threadPointerSchema, value);
  const more = problems.length - PROBLEMS_NAMED;
  const named = problems.slice(0, PROBLEMS_NAMED).join("; ");
  return more > 0 ? `${named} (and ${more} more)` : named;
}
