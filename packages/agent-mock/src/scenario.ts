import { readFileSync } from "node:fs";
import { isPlainObject, type Usage } from "@united-workforce/protocol";
import { errorMessage, UwfError } from "@united-workforce/util";
import { parse as parseYaml } from "yaml";
import { readCachedScenario, writeCachedScenario } from "./scenario-cache.js";

/** A scripted answer: raw text as is, or an output object rendered as frontmatter. */
export type MockAnswer = string | Record<string, unknown>;

export interface MockStep {
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
  steps: MockStep[];
  /**
   * Answers for a fan-out's child threads, one entry per child role: used for a step whose
   * own entry in `steps` is for another role (or missing), as a child's first step is.
   */
  children?: MockStep[];
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
  if (!isPlainObject(data) || !Array.isArray(data.steps))
    throw invalid(path, 'it must be a mapping with a "steps" list');
  const problems: string[] = [];
  for (const [index, step] of data.steps.entries()) stepProblems(step, `steps[${index}]`, problems);
  if (data.children !== undefined && !Array.isArray(data.children))
    problems.push('"children" must be a list of steps');
  else if (Array.isArray(data.children))
    for (const [i, step] of data.children.entries()) stepProblems(step, `children[${i}]`, problems);
  if (problems.length > 0) throw invalid(path, problems.join("; "));
  if (home !== undefined && !cached) writeCachedScenario(home, path, text, data);
  return data as unknown as MockScenario;
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
