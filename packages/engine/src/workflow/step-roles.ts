import { isPlainObject } from "@united-workforce/protocol";
import type { RoleExits } from "./role-exits.js";
import type { SchemaMap } from "./schema-shape.js";

/**
 * Roles that run no agent (issue 9): `agent: human` waits for `uwf thread answer`, `run` runs a
 * command whose result is the output. Their rules live here, apart from the agent roles' rules
 * in check-shape.ts.
 */
export const STEP_ROLE_KEYS = ["agent", "run", "shell", "exitStatus", "timeoutSeconds"];

/** The value of `agent:` that makes a role human. */
export const HUMAN_AGENT = "human";

/** What a role declares about how it runs, once its keys are well formed. */
export interface StepRoleSpec {
  human: boolean;
  /** The `exitStatus` mapping of a script role, or null. */
  exitStatus: Record<string, string> | null;
}

const EXIT_KEY = /^(?:0|[1-9][0-9]{0,2})$/;

/**
 * Check the keys that make a role human or a script. Returns what the semantic pass needs, or
 * null when the role uses none of them or one is malformed (the error is already pushed).
 */
export function checkStepRoleShape(
  role: string,
  value: SchemaMap,
  errors: string[],
): StepRoleSpec | null {
  const where = `role "${role}"`;
  const before = errors.length;
  const { agent, run, shell, exitStatus, timeoutSeconds } = value;
  if (
    agent === undefined &&
    run === undefined &&
    shell === undefined &&
    exitStatus === undefined &&
    timeoutSeconds === undefined
  ) {
    return null;
  }
  if (agent !== undefined && agent !== HUMAN_AGENT) {
    errors.push(
      `${where}: "agent" must be "${HUMAN_AGENT}" (found ${JSON.stringify(agent)}); which agent runs the other roles is set in config.yaml or with --agent`,
    );
  }
  if (agent !== undefined && run !== undefined) {
    errors.push(
      `${where}: "agent: ${HUMAN_AGENT}" and "run" exclude each other: a role is answered by a human or runs a command`,
    );
  }
  checkRunShape(where, value, errors);
  if (shell !== undefined && typeof shell !== "boolean") {
    errors.push(`${where}: "shell" must be true or false`);
  }
  if (
    timeoutSeconds !== undefined &&
    !(Number.isInteger(timeoutSeconds) && (timeoutSeconds as number) >= 1)
  ) {
    errors.push(`${where}: "timeoutSeconds" must be a whole number of seconds, at least 1`);
  }
  const mapping = exitStatus === undefined ? null : checkExitStatusShape(where, exitStatus, errors);
  if (errors.length !== before) return null;
  return { human: agent === HUMAN_AGENT, exitStatus: mapping };
}

/** `run`: an argv list, or one string with `shell: true`; without it, its options are errors. */
function checkRunShape(where: string, value: SchemaMap, errors: string[]): void {
  const { run, shell } = value;
  if (run === undefined) {
    for (const key of ["shell", "exitStatus", "timeoutSeconds"]) {
      if (value[key] !== undefined) errors.push(`${where}: "${key}" needs "run" (a command)`);
    }
  } else if (typeof run === "string") {
    if (shell !== true) {
      errors.push(
        `${where}: "run" is a string, which only runs with a shell: write an argv list (run: [npm, test]) or set "shell: true" to run it with /bin/sh -c`,
      );
    }
    if (run.trim() === "") errors.push(`${where}: "run" must not be empty`);
  } else if (Array.isArray(run)) {
    if (run.length === 0) errors.push(`${where}: "run" must name a command (an argv list)`);
    else if (!run.every((arg) => typeof arg === "string")) {
      errors.push(`${where}: "run" must be a list of strings (the command and its arguments)`);
    } else if ((run[0] as string).trim() === "") {
      errors.push(`${where}: "run[0]" (the command) must not be empty`);
    }
    if (shell === true) {
      errors.push(
        `${where}: "shell: true" needs "run" as one string (the shell command line), not a list`,
      );
    }
  } else {
    errors.push(`${where}: "run" must be a list of strings (the command and its arguments)`);
  }
}

/** The `exitStatus` mapping of exit codes (0 to 255, or `default`) to statuses, or null. */
function checkExitStatusShape(
  where: string,
  exitStatus: unknown,
  errors: string[],
): Record<string, string> | null {
  if (!isPlainObject(exitStatus)) {
    errors.push(
      `${where}: "exitStatus" must map exit codes to statuses, e.g. { 0: passed, default: failed }`,
    );
    return null;
  }
  const mapping: Record<string, string> = {};
  for (const [code, status] of Object.entries(exitStatus)) {
    if (code !== "default" && !(EXIT_KEY.test(code) && Number(code) <= 255)) {
      errors.push(
        `${where}: exitStatus key "${code}" must be an exit code from 0 to 255 or "default"`,
      );
    }
    if (typeof status !== "string" || status === "") {
      errors.push(`${where}: exitStatus[${code}] must be a status name`);
    } else mapping[code] = status;
  }
  return mapping;
}

/** `exitStatus` may only give statuses the role's frontmatter declares (its graph keys). */
export function checkStepRoleSemantics(
  role: string,
  spec: StepRoleSpec,
  exits: RoleExits | null,
  errors: string[],
): void {
  if (spec.exitStatus === null || exits === null) return;
  for (const [code, status] of Object.entries(spec.exitStatus)) {
    if (!exits.statuses.includes(status)) {
      errors.push(
        `role "${role}": exitStatus[${code}] is "${status}", which its frontmatter does not declare in "$status" (declared: ${exits.statuses.join(", ")})`,
      );
    }
  }
}
