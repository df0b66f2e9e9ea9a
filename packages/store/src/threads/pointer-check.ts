import { isHash, isThreadId, type ThreadPointer } from "@united-workforce/protocol";

const STORED_STATUSES = new Set(["idle", "suspended", "completed", "cancelled"]);
const SUSPEND_KINDS = new Set([
  "question",
  "failure",
  "budget",
  "human",
  "guard",
  "retry",
  "fanout",
]);
const GUARDS = new Set(["maxSteps", "maxVisits"]);

/**
 * Parse a pointer file, or say what is wrong with it. Hand-written rather than ajv: `thread
 * list` reads thousands of these, and loading ajv would cost more than reading them all.
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
 * What is wrong with a pointer's value (null: nothing), by the rules a pointer file is read
 * with: `thread import` checks a bundle's pointers with it before it writes one.
 */
export function pointerProblem(value: unknown, id: string): string | null {
  if (!isRecord(value)) return "not a JSON object";
  if (value.thread !== id) return `it names thread ${JSON.stringify(value.thread)}, not ${id}`;
  for (const key of ["workflow", "cwd", "createdAt", "updatedAt"]) {
    if (typeof value[key] !== "string") return `\`${key}\` is missing or not a string`;
  }
  for (const key of ["workflowHash", "start", "head"]) {
    if (!isHash(value[key])) return `\`${key}\` is missing or not a CAS hash`;
  }
  if (value.forkedFrom !== undefined && !isHash(value.forkedFrom))
    return "`forkedFrom` is not a CAS hash";
  if (!STORED_STATUSES.has(value.status as string)) {
    return `\`status\` ${JSON.stringify(value.status)} is not idle, suspended, completed or cancelled`;
  }
  if (value.currentRole !== null && typeof value.currentRole !== "string") {
    return "`currentRole` is not a string or null";
  }
  if (!Number.isInteger(value.steps) || (value.steps as number) < 0) {
    return "`steps` is not a non-negative integer";
  }
  if (value.rev !== undefined && !(Number.isInteger(value.rev) && (value.rev as number) >= 0)) {
    return "`rev` is not a non-negative integer";
  }
  if (value.parent !== undefined) {
    const parent = value.parent;
    if (
      !isRecord(parent) ||
      !isThreadId(parent.thread) ||
      !isHash(parent.step) ||
      !Number.isInteger(parent.index) ||
      (parent.index as number) < 0
    ) {
      return "`parent` is not { thread: <thread id>, step: <CAS hash>, index: <non-negative integer> }";
    }
  }
  return suspendedProblem(value.suspended);
}

function suspendedProblem(suspended: unknown): string | null {
  if (suspended === null) return null;
  if (
    !isRecord(suspended) ||
    typeof suspended.role !== "string" ||
    typeof suspended.reason !== "string" ||
    !SUSPEND_KINDS.has(suspended.kind as string) ||
    (suspended.prompt !== undefined && typeof suspended.prompt !== "string")
  ) {
    return "`suspended` is not null or { role, reason, kind: question|failure|budget|human|guard|retry|fanout, prompt? }";
  }
  if (suspended.retryAfter !== undefined && Number.isNaN(Date.parse(String(suspended.retryAfter))))
    return "`suspended.retryAfter` is not a time";
  if (suspended.guard !== undefined && !GUARDS.has(suspended.guard as string))
    return "`suspended.guard` is not maxSteps or maxVisits";
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
