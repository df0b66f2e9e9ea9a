import {
  END,
  FANOUT_FAILURE_RULES,
  type FanoutFailureRule,
  isPlainObject,
  type RolePayload,
  START,
  type WorkflowPayload,
} from "@united-workforce/protocol";
import { fanoutPath } from "../moderator/evaluate.js";
import { unknownKey } from "./messages.js";
import type { SchemaMap } from "./schema-shape.js";

/**
 * Fan-out edges and join roles (issue 9): how they are written in YAML and the shape rules
 * of both. Their meaning (what `over` names, which roles an edge may reach) is checked in
 * fanout-rules.ts; how a `workflow:` child is found, in fanout-resolve.ts.
 */

/** `fanout:` as written on an edge: exactly one of `role` / `workflow`. */
export interface FanoutDefinition {
  /** A list in the source role's output (or `inputs.<x>`): one child per item. */
  over?: string;
  /** A role of this workflow, run as a one-role child workflow. */
  role?: string;
  /** A workflow name, a path relative to this file, or a workflow hash. */
  workflow?: string;
  concurrency?: number;
  failure?: FanoutFailureRule;
  /** `role:` children only: each runs in a git worktree of its own (a `workflow:` child's own `worktree` decides). */
  worktree?: boolean;
}

export const FANOUT_KEYS = ["over", "role", "workflow", "concurrency", "failure", "worktree"];

/** The key that makes a role the join of a fan-out. */
export const JOIN_KEY = "join";

/** The statuses a join's output may carry: every child completed, or some failed. */
export const JOIN_STATUSES = ["done", "partial"] as const;

/** The fields uwf writes into a join step's output; nothing else can be in it. */
export const JOIN_FIELDS = ["$status", "results", "completed", "failed"];

/**
 * What uwf writes into every join step's output, whatever the join's frontmatter declares, so
 * edges out of a join may read these fields (`{{{completed}}}`, `{{#results}}…{{/results}}`).
 */
export const JOIN_OUTPUT_FIELDS = {
  $status: { enum: [...JOIN_STATUSES] },
  results: {
    type: "array",
    items: {
      type: "object",
      required: ["index", "item", "thread", "status", "output"],
      properties: {
        index: { type: "integer" },
        item: {},
        thread: { type: "string" },
        status: { enum: ["completed", "failed"] },
        output: { type: ["object", "null"], additionalProperties: true },
        reason: { type: "string" },
      },
    },
  },
  completed: { type: "integer" },
  failed: { type: "integer" },
};

/** Keys a join role may not have: its step is written by uwf, never run. */
export const JOIN_FORBIDDEN_KEYS = ["agent", "run", "shell", "exitStatus", "timeoutSeconds"];

/** The task of the one role of a `role:` fan-out's child workflow: its thread's task. */
export const CHILD_START_PROMPT = "Carry out the task given to this thread (a child of a fan-out).";
export const CHILD_RESUME_PROMPT = "Continue the task given to this thread (a child of a fan-out).";
export const CHILD_END_PROMPT = "The child thread has finished its task.";

/** A variable path: names separated by dots, as mustache reads them. */
const VARIABLE_PATH = /^[A-Za-z_$][A-Za-z0-9_$-]*(\.[A-Za-z0-9_$-]+)*$/;

/**
 * Check a `fanout:` mapping's keys and types. Returns it when well formed; problems are pushed
 * to `errors` (prefixed with `where`, the edge).
 */
export function checkFanoutShape(
  where: string,
  value: unknown,
  errors: string[],
): FanoutDefinition | null {
  const at = `${where}.fanout`;
  if (!isPlainObject(value)) {
    errors.push(
      `${at} must be a mapping: { over: "{{{items}}}", role: <role> | workflow: <workflow>, concurrency, failure }`,
    );
    return null;
  }
  const before = errors.length;
  for (const key of Object.keys(value)) {
    if (!FANOUT_KEYS.includes(key)) {
      errors.push(unknownKey(`${at}: unknown key`, key, FANOUT_KEYS));
    }
  }
  const { over, role, workflow, concurrency, failure, worktree } = value;
  if (role === undefined && workflow === undefined) {
    errors.push(
      `${at} must name what each child runs: "role: <a role of this workflow>" or "workflow: <name, path or hash>"`,
    );
  } else if (role !== undefined && workflow !== undefined) {
    errors.push(
      `${at} has both "role" and "workflow": a child runs one role of this workflow or a whole workflow, so keep one`,
    );
  }
  for (const [key, field] of [
    ["role", role],
    ["workflow", workflow],
  ] as const) {
    if (field === undefined) continue;
    if (typeof field !== "string") errors.push(`${at}.${key} must be a string`);
    else if (field.trim() === "") errors.push(`${at}.${key} must not be empty`);
  }
  if (over !== undefined) {
    if (typeof over !== "string") {
      errors.push(
        `${at}.over must be a string naming a list in the output, e.g. "{{{files}}}" or "plan.files"`,
      );
    } else if (!isVariablePath(over)) {
      errors.push(
        `${at}.over is ${JSON.stringify(over)}: it must name one list field, as "{{{files}}}", "{{files}}" or "files" (dotted paths such as "plan.files" and "inputs.files" are fine)`,
      );
    }
  }
  if (
    concurrency !== undefined &&
    !(Number.isInteger(concurrency) && (concurrency as number) >= 1)
  ) {
    errors.push(
      `${at}.concurrency must be a whole number, at least 1 (how many children run at once; default 4)`,
    );
  }
  if (failure !== undefined && !(FANOUT_FAILURE_RULES as readonly unknown[]).includes(failure)) {
    errors.push(
      `${at}.failure is ${JSON.stringify(failure)}: it must be one of ${FANOUT_FAILURE_RULES.join(", ")} (all: every child must complete; any: at least one; continue: the join runs whatever failed)`,
    );
  }
  if (worktree !== undefined && typeof worktree !== "boolean") {
    errors.push(`${at}.worktree must be true or false (each child in a git worktree of its own)`);
  } else if (worktree !== undefined && workflow !== undefined) {
    errors.push(
      `${at}.worktree is for "role:" children: a "workflow:" child runs in a worktree when its own workflow says "worktree: true"`,
    );
  }
  return errors.length === before ? (value as FanoutDefinition) : null;
}

/** True when `over` names a field the way a template would: `{{{a.b}}}`, `{{a.b}}` or `a.b`. */
export function isVariablePath(over: string): boolean {
  const trimmed = over.trim();
  const triple = /^\{\{\{\s*([^{}]*?)\s*\}\}\}$/.exec(trimmed);
  const double = /^\{\{\s*([^{}&#^/!>]*?)\s*\}\}$/.exec(trimmed);
  const inner = triple?.[1] ?? double?.[1] ?? (/[{}]/.test(trimmed) ? null : trimmed);
  if (inner === null || inner === undefined) return false;
  return VARIABLE_PATH.test(inner) && fanoutPath(over).join(".") === inner;
}

/**
 * Check the join-specific keys of a role: `join` must be `true`, and a join runs nothing.
 * Returns true when the role is a well-formed join.
 */
export function checkJoinRoleShape(role: string, value: SchemaMap, errors: string[]): boolean {
  if (value[JOIN_KEY] === undefined) return false;
  const where = `role "${role}"`;
  if (value[JOIN_KEY] !== true) {
    errors.push(
      `${where}: "join" must be true (the role is then the join of a fan-out, written by uwf from the children's results), or left out`,
    );
    return false;
  }
  const present = JOIN_FORBIDDEN_KEYS.filter((key) => value[key] !== undefined);
  if (present.length > 0) {
    errors.push(
      `${where}: a join role ("join: true") runs no agent and no command: uwf writes its step from the children's results; remove ${present.map((k) => `"${k}"`).join(", ")}`,
    );
  }
  return true;
}

/**
 * The workflow a `role:` fan-out's children run: role `role` of the parent alone, started with
 * the thread's task and ended by every status it declares, in a worktree of its own when the
 * fan-out says `worktree: true`. Made when the parent is stored, so a later change of the
 * parent's file changes neither.
 */
export function childRoleWorkflow(
  parentName: string,
  role: string,
  payload: RolePayload,
  statuses: readonly string[],
  worktree = false,
): WorkflowPayload {
  const ends = Object.fromEntries(
    statuses.map((status) => [status, { role: END, prompt: CHILD_END_PROMPT }]),
  );
  return {
    name: `${parentName}/${role}`,
    roles: { [role]: payload },
    graph: {
      [START]: {
        new: { role, prompt: CHILD_START_PROMPT },
        resume: { role, prompt: CHILD_RESUME_PROMPT },
      },
      [role]: ends,
    },
    ...(worktree ? { worktree: true } : {}),
  };
}
