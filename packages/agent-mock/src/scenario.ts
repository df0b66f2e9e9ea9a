import { readFileSync } from "node:fs";
import { isPlainObject, type Usage } from "@united-workforce/protocol";
import { errorMessage, UwfError } from "@united-workforce/util";
import { parse as parseYaml } from "yaml";
import { readCachedScenario, writeCachedScenario } from "./scenario-cache.js";

/** A scripted answer: raw text as is, or an output object rendered as frontmatter. */
export type MockAnswer = string | Record<string, unknown>;

export interface MockStep {
  /** The role the entry answers; optional under `roles:`, whose key names it. */
  role: string;
  /** The answer: an output object (rendered as frontmatter over `body`), or the raw reply text. */
  output?: MockAnswer;
  body?: string;
  /** Successive answers: `run` gives the first, each correction the next (the last repeats). */
  attempts?: MockAnswer[];
  delay_ms?: number;
  /** Wait until this file exists before answering (a relative path is the scenario's sibling). */
  wait_for?: string;
  /** Exit with this code without a step (or after printing `stdout`). */
  exit?: number;
  /** Print this raw text on stdout instead of running the step. */
  stdout?: string;
  stderr?: string;
  usage?: Partial<Usage>;
  /**
   * Fail this many tries of the entry transiently (exit 75, "rate limited" on stderr) before
   * answering; the tries are counted per thread under `$UWF_HOME/mock/`.
   */
  transient?: number;
  /** With `transient`: the wait the failure asks for, printed as `retry-after: <seconds>`. */
  retry_after?: number;
}

export interface MockScenario {
  /** Entries by position: the thread's first step takes the first, and so on. */
  steps: MockStep[];
  /**
   * Answers for a fan-out's child threads, one entry per child role: used for a step whose
   * own entry in `steps` is for another role (or missing), as a child's first step is.
   */
  children?: MockStep[];
  /**
   * Entries by role, for a step `steps` has no entry of its role for: one entry answers every
   * visit of the role; a list answers its first visit in the thread, then its second, and so
   * on. A key `role[i]` is for the fan-out child of item `i` (from 0), before `role`.
   */
  roles?: Record<string, MockStep | MockStep[]>;
}

/** A `roles:` key: the role, and the fan-out item it is for (null: any thread). */
export function roleKey(key: string): { role: string; item: number | null } {
  const match = /^(.+)\[(\d+)\]$/.exec(key);
  return match ? { role: match[1]!, item: Number(match[2]) } : { role: key, item: null };
}

const STEP_KEYS = new Set([
  "role",
  "output",
  "body",
  "attempts",
  "delay_ms",
  "wait_for",
  "exit",
  "stdout",
  "stderr",
  "usage",
  "transient",
  "retry_after",
]);

/**
 * Read a YAML or JSON scenario; every problem names the file and the step. With `home` (uwf's
 * home), a scenario read before with the same text comes from its parse cache (scenario-cache.ts).
 */
export function loadScenario(path: string, home?: string): MockScenario {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UwfError("USAGE", `cannot read scenario ${path}: ${errorMessage(error)}`, {
      hint: "Pass an existing file with --scenario (relative paths resolve against the working directory).",
    });
  }
  let data = home === undefined ? undefined : readCachedScenario(home, path, text);
  const cached = data !== undefined;
  if (!cached) {
    try {
      data = parseYaml(text);
    } catch (error) {
      throw invalid(path, `not valid YAML or JSON: ${errorMessage(error)}`);
    }
  }
  if (!isPlainObject(data) || (data.steps === undefined && data.roles === undefined))
    throw invalid(path, 'it must be a mapping with a "steps" list or "roles" by name');
  if (data.steps === undefined) data.steps = [];
  const problems: string[] = [];
  if (!Array.isArray(data.steps)) problems.push('"steps" must be a list of steps');
  else
    for (const [index, step] of data.steps.entries())
      stepProblems(step, `steps[${index}]`, problems);
  if (data.roles !== undefined && !isPlainObject(data.roles))
    problems.push('"roles" must be a mapping of role names to an entry or a list of entries');
  else if (isPlainObject(data.roles)) rolesProblems(data.roles, problems);
  if (data.children !== undefined && !Array.isArray(data.children))
    problems.push('"children" must be a list of steps');
  else if (Array.isArray(data.children))
    for (const [i, step] of data.children.entries()) stepProblems(step, `children[${i}]`, problems);
  if (problems.length > 0) throw invalid(path, problems.join("; "));
  if (home !== undefined && !cached) writeCachedScenario(home, path, text, data);
  return data as unknown as MockScenario;
}

/** `roles:` entries take their role from the key; a `role` written in one must agree. */
function rolesProblems(roles: Record<string, unknown>, problems: string[]): void {
  for (const [key, value] of Object.entries(roles)) {
    const { role } = roleKey(key);
    const entries = Array.isArray(value) ? value : [value];
    if (entries.length === 0) problems.push(`roles.${key} must not be an empty list`);
    for (const [i, entry] of entries.entries()) {
      const where = Array.isArray(value) ? `roles.${key}[${i}]` : `roles.${key}`;
      if (isPlainObject(entry) && entry.role !== undefined && entry.role !== role)
        problems.push(`${where}.role is "${String(entry.role)}", but its key names role "${role}"`);
      else if (isPlainObject(entry)) entry.role = role;
      stepProblems(entry, where, problems);
    }
  }
}

function stepProblems(step: unknown, where: string, problems: string[]): void {
  if (!isPlainObject(step)) {
    problems.push(`${where} must be a mapping`);
    return;
  }
  for (const key of Object.keys(step))
    if (!STEP_KEYS.has(key)) problems.push(`${where} has unknown key "${key}"`);
  if (typeof step.role !== "string" || step.role === "")
    problems.push(`${where}.role must be a role name`);
  if (step.output !== undefined && !isPlainObject(step.output) && typeof step.output !== "string")
    problems.push(`${where}.output must be a mapping or the raw reply text`);
  if (step.body !== undefined && typeof step.body !== "string")
    problems.push(`${where}.body must be a string`);
  if (step.body !== undefined && typeof step.output === "string")
    problems.push(`${where}.body goes with a mapping output; a raw output holds its own body`);
  if (step.stdout !== undefined && typeof step.stdout !== "string")
    problems.push(`${where}.stdout must be a string`);
  if (step.stderr !== undefined && typeof step.stderr !== "string")
    problems.push(`${where}.stderr must be a string`);
  if (step.exit !== undefined && !(Number.isInteger(step.exit) && (step.exit as number) >= 0)) {
    problems.push(`${where}.exit must be an exit code`);
  }
  if (step.delay_ms !== undefined && !(typeof step.delay_ms === "number" && step.delay_ms >= 0)) {
    problems.push(`${where}.delay_ms must be a number of milliseconds`);
  }
  if (step.wait_for !== undefined && !(typeof step.wait_for === "string" && step.wait_for !== ""))
    problems.push(`${where}.wait_for must be a file path`);
  if (step.attempts !== undefined) {
    const ok =
      Array.isArray(step.attempts) &&
      step.attempts.length > 0 &&
      step.attempts.every((a) => typeof a === "string" || isPlainObject(a));
    if (!ok) problems.push(`${where}.attempts must be a non-empty list of strings or mappings`);
  }
  if (
    step.transient !== undefined &&
    !(Number.isInteger(step.transient) && (step.transient as number) >= 1)
  ) {
    problems.push(`${where}.transient must be a number of failed tries, at least 1`);
  }
  if (
    step.retry_after !== undefined &&
    !(typeof step.retry_after === "number" && step.retry_after >= 0)
  ) {
    problems.push(`${where}.retry_after must be a number of seconds`);
  }
  if (step.retry_after !== undefined && step.transient === undefined)
    problems.push(`${where}.retry_after goes with "transient"`);
  if (step.usage !== undefined && !isPlainObject(step.usage))
    problems.push(`${where}.usage must be a mapping`);
  const acts = step.output !== undefined || step.attempts !== undefined;
  if (!acts && step.exit === undefined && step.stdout === undefined) {
    problems.push(`${where} needs "output", "attempts", "stdout" or "exit"`);
  }
}

function invalid(path: string, problem: string): UwfError {
  return new UwfError("USAGE", `scenario ${path} is invalid: ${problem}`, {
    hint: "See packages/agent-mock/README.md for the scenario format.",
  });
}
