import {
  HASH_PATTERN,
  hiddenCharacterProblem,
  isPlainObject,
  type JsonSchema,
  STATUS_FIELD,
  type StepPayload,
  SUSPEND,
  suspendOutputSchema,
} from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";
import { errorMessage, isUwfError, sanitizeTerminalText } from "@united-workforce/util";

/**
 * The type of an agent's `$SUSPEND` output: the suspend schema, valid for every role. Known to
 * this process, so outputs of it validate, without writing it: the adapter stored it with the
 * output.
 */
export function suspendSchemaHash(cas: Cas): string {
  return cas.prepareSchema(suspendOutputSchema as unknown as JsonSchema).hash;
}

export interface ExpectedStep {
  prev: string | null;
  start: string;
  role: string;
  /** Schema hash of the role's frontmatter. */
  schema: string;
}

export interface VerifiedStep {
  hash: string;
  payload: StepPayload;
  output: Record<string, unknown>;
  status: string;
}

/**
 * `verifyStep` begun early: the result line arrives before the adapter has ended (a Node
 * adapter takes ≈ 4 ms to tear down), so the step is checked meanwhile. A passed check is used
 * when that line is still the last one once the adapter has exited 0; otherwise, and when the
 * early check failed (an adapter may print its line before its last write, against the
 * protocol's order), the last line is checked again then. Checking reads and validates only, so
 * a check never used changes nothing.
 */
export class StepCheck {
  #line: string | null = null;
  #verified: Promise<VerifiedStep> | null = null;

  constructor(
    private readonly cas: Cas,
    private readonly expected: ExpectedStep,
  ) {}

  /** Start checking `line`, the first result-like line the adapter printed. Settles with it. */
  begin(line: string): Promise<void> {
    const verified = verifyStep(this.cas, line, this.expected);
    this.#line = line;
    this.#verified = verified;
    // A rejected early check must not surface as unhandled: it is checked again if it matters.
    return verified.then(
      () => {},
      () => {},
    );
  }

  /** Drop an early check: the adapter runs again (a retry). */
  forget(): void {
    this.#line = null;
    this.#verified = null;
  }

  /** The verified step named by `lastLine`, the adapter's last stdout line after its exit. */
  async result(lastLine: string): Promise<VerifiedStep> {
    if (this.#verified !== null && this.#line === lastLine) {
      const early = await this.#verified.catch(() => null);
      if (early !== null) return early;
    }
    return await verifyStep(this.cas, lastLine, this.expected);
  }
}

/**
 * Check the adapter's result line and the step it names before the head moves. The adapter is
 * not trusted: every link and the output are checked against what this exec expects.
 */
export async function verifyStep(
  cas: Cas,
  lastLine: string,
  expected: ExpectedStep,
): Promise<VerifiedStep> {
  const stepHash = resultStepHash(lastLine);
  const payload = await linkedStep(cas, stepHash, expected);
  const output = await checkedOutput(cas, stepHash, payload, expected);
  await checkStoredRefs(cas, stepHash, payload);
  const status = output[STATUS_FIELD];
  return {
    hash: stepHash,
    payload,
    output,
    status: typeof status === "string" ? status : "",
  };
}

/** The step hash the adapter's result line names. */
function resultStepHash(lastLine: string): string {
  let line: unknown;
  try {
    line = JSON.parse(lastLine);
  } catch {
    throw rejection(
      lastLine === ""
        ? "the adapter printed nothing on stdout"
        : `the adapter's last stdout line is not JSON: ${preview(lastLine)}`,
    );
  }
  const stepHash = (line as { stepHash?: unknown } | null)?.stepHash;
  if (typeof stepHash !== "string" || !HASH_PATTERN.test(stepHash)) {
    throw rejection(`the adapter's result line has no valid "stepHash": ${preview(lastLine)}`);
  }
  return stepHash;
}

/** The step, when it is a valid StepNode of this thread, after its head, for this role. */
async function linkedStep(
  cas: Cas,
  stepHash: string,
  expected: ExpectedStep,
): Promise<StepPayload> {
  let payload: StepPayload;
  try {
    payload = await cas.getPayload<StepPayload>(stepHash, "step");
  } catch (error) {
    throw rejection(`step ${stepHash} cannot be used: ${errorMessage(error)}`);
  }
  // A node can be stored without validation: its usage and links must not reach the pointer
  // unchecked.
  const shape = await cas.validate(cas.builtin("step"), payload);
  if (!shape.valid) {
    throw rejection(`step ${stepHash} is not a valid StepNode: ${shape.errors.join("; ")}`);
  }
  if (payload.start !== expected.start) {
    throw rejection(
      `step ${stepHash} belongs to another thread (start ${payload.start}, expected ${expected.start})`,
    );
  }
  if (payload.prev !== expected.prev) {
    throw rejection(
      `step ${stepHash} does not follow the current head (prev ${payload.prev}, expected ${expected.prev})`,
    );
  }
  if (payload.role !== expected.role) {
    throw rejection(
      `step ${stepHash} is for role "${payload.role}", but this step runs role "${expected.role}"`,
    );
  }
  return payload;
}

/** The step's output, typed by and valid against the role's schema (or the suspend schema). */
async function checkedOutput(
  cas: Cas,
  stepHash: string,
  payload: StepPayload,
  expected: ExpectedStep,
): Promise<Record<string, unknown>> {
  let outputNode: { type: string; payload: unknown };
  try {
    outputNode = await cas.get(payload.output);
  } catch (error) {
    throw rejection(`the output of step ${stepHash} cannot be read: ${errorMessage(error)}`);
  }
  const output = outputNode.payload;
  if (!isPlainObject(output)) {
    throw rejection(`the output of step ${stepHash} is not an object`);
  }
  const record = output as Record<string, unknown>;
  const status = record[STATUS_FIELD];
  const hidden = typeof status === "string" && hiddenCharacterProblem(`"${STATUS_FIELD}"`, status);
  if (hidden) throw rejection(`the output of step ${stepHash} is invalid: ${hidden}`);
  const isSuspend = status === SUSPEND;
  const schema = isSuspend ? suspendSchemaHash(cas) : expected.schema;
  if (outputNode.type !== schema) {
    throw rejection(
      `the output of step ${stepHash} is not typed by role "${expected.role}"'s schema`,
    );
  }
  const check = await cas.validate(schema, output);
  if (!check.valid) {
    throw rejection(
      `the output of step ${stepHash} fails role "${expected.role}"'s schema: ${check.errors.join("; ")}`,
    );
  }
  return record;
}

/** The step's body, prompt and detail are stored, the first two as text. */
async function checkStoredRefs(cas: Cas, stepHash: string, payload: StepPayload): Promise<void> {
  for (const [field, kind] of [
    ["body", "text"],
    ["assembledPrompt", "text"],
    ["detail", null],
  ] as const) {
    const ref = payload[field];
    // A text ref is read once (its type is checked), not looked up and then read.
    const type = kind === null ? null : await typeOf(cas, ref);
    if (type === undefined || (kind === null && !(await cas.has(ref)))) {
      throw rejection(`step ${stepHash} points to node ${ref} (${field}), which is not stored`);
    }
    if (kind !== null && type !== cas.builtin(kind)) {
      throw rejection(`the ${field} of step ${stepHash} is not a ${kind} node`);
    }
  }
}

/** A node's type, or undefined when it is not stored (a damaged node still throws). */
async function typeOf(cas: Cas, hash: string): Promise<string | undefined> {
  try {
    return (await cas.get(hash)).type;
  } catch (error) {
    if (isUwfError(error) && error.code === "CAS_NOT_FOUND") return undefined;
    throw error;
  }
}

export class StepRejected extends Error {}

function rejection(message: string): StepRejected {
  return new StepRejected(`step rejected: ${message}`);
}

function preview(text: string): string {
  // The line is the adapter's, and the message reaches a terminal.
  const oneLine = sanitizeTerminalText(text).replace(/\s+/g, " ");
  return oneLine.length > 120 ? `${oneLine.slice(0, 120)}…` : oneLine;
}
