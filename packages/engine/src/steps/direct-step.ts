import {
  hiddenCharacterProblem,
  isPlainObject,
  STATUS_FIELD,
  type StepPayload,
  type ThreadPointer,
  type Usage,
} from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";
import type { PlannedStep } from "./planned-step.js";
import type { VerifiedStep } from "./verify-step.js";

/** A step the engine writes itself, for a role that runs no adapter (human or script). */
export interface DirectStep {
  /** The `agent` recorded on the step: `human` or `script`. */
  agent: string;
  output: Record<string, unknown>;
  /** Markdown body. */
  body: string;
  /** What the role was shown or ran, stored as the step's assembled prompt. */
  assembledPrompt: string;
  cwd: string;
  /** Extra detail fields (who answered; the command, its exit code and output tail). */
  detail: Record<string, unknown>;
  startedAtMs: number;
}

/**
 * The output's problems against the role's schema, one message per problem; empty when valid.
 * Checked before anything is written, so a refused output leaves no node behind.
 */
export async function outputProblems(
  cas: Cas,
  schema: string,
  output: Record<string, unknown>,
): Promise<string[]> {
  const status = output[STATUS_FIELD];
  const hidden = typeof status === "string" && hiddenCharacterProblem(`"${STATUS_FIELD}"`, status);
  const check = await cas.validate(schema, output);
  return [...(hidden ? [hidden] : []), ...(check.valid ? [] : check.errors)];
}

/**
 * What a step that ran no model used: nothing, a known zero. Unknown (null) would make a cost
 * budget stop the run after every script, human or join step, as for an agent that reported
 * no cost.
 */
const NO_MODEL_USAGE: Usage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0,
  turns: 0,
  durationMs: null,
};

/**
 * Store a step node exactly like an adapter's (same links, output typed by the role's schema,
 * body, detail and prompt nodes), in one batch. The output must have passed `outputProblems`.
 * The detail carries the thread's agent sessions forward, so an agent role after this step
 * still resumes its conversation.
 */
export async function storeDirectStep(
  cas: Cas,
  pointer: ThreadPointer,
  plan: PlannedStep,
  schema: string,
  step: DirectStep,
): Promise<VerifiedStep> {
  const sessions = await sessionsAt(cas, pointer);
  const batch = cas.batch();
  const output = await batch.put(schema, step.output);
  const body = batch.putText(step.body);
  const detail = await batch.put(cas.builtin("stepDetail"), {
    adapter: step.agent,
    model: null,
    sessionId: null,
    turns: [],
    sessions,
    rawOutput: "",
    attempts: [],
    ...step.detail,
  });
  const assembledPrompt = batch.putText(step.assembledPrompt);
  const completedAtMs = Date.now();
  const payload: StepPayload = {
    start: pointer.start,
    prev: plan.prev,
    role: plan.role,
    output,
    body,
    detail,
    agent: step.agent,
    edgePrompt: plan.prompt,
    assembledPrompt,
    cwd: step.cwd,
    startedAtMs: step.startedAtMs,
    completedAtMs,
    usage: { ...NO_MODEL_USAGE, durationMs: completedAtMs - step.startedAtMs },
    attempts: 1,
  };
  const hash = await batch.put(cas.builtin("step"), payload);
  await batch.flush();
  const status = step.output[STATUS_FIELD];
  return { hash, payload, output: step.output, status: typeof status === "string" ? status : "" };
}

/**
 * The sessions map of the step the new one follows (agent-kit's `readSessions` reads the same
 * field): copied forward, with the step that wrote its own role's record filled in.
 */
async function sessionsAt(cas: Cas, pointer: ThreadPointer): Promise<Record<string, unknown>> {
  if (pointer.head === pointer.start) return {};
  const head = await cas.getPayload<StepPayload>(pointer.head, "step");
  const detail = (await cas.get(head.detail)).payload as { sessions?: unknown } | null;
  const sessions = detail?.sessions;
  if (!isPlainObject(sessions)) return {};
  const map = { ...(sessions as Record<string, Record<string, unknown>>) };
  const own = map[head.role];
  if (own && typeof own === "object" && own.step === undefined) {
    map[head.role] = { ...own, step: pointer.head };
  }
  return map;
}
