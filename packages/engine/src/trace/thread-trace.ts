import {
  HASH_PATTERN,
  isPlainObject,
  STATUS_FIELD,
  type StartPayload,
  type StepPayload,
  type ThreadPointer,
  type TurnPayload,
  type Usage,
} from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { withFanoutChildren } from "../history/bundle.js";
import { walkBack } from "../history/chain.js";
import { JOIN_AGENT } from "../steps/fanout/join.js";
import { SCRIPT_AGENT } from "../steps/script-step.js";
import { HUMAN_AGENT } from "../workflow/step-roles.js";
import { GEN_AI, GEN_AI_OPERATION } from "./semconv.js";
import { runSpanIdOf, stepSpanIdOf, traceIdOf, turnSpanIdOf } from "./trace-ids.js";

export type SpanAttributeValue = string | number | boolean;

/**
 * One span of a thread's trace, as history gives it: ids in hex (derived from node hashes),
 * times in epoch milliseconds. Plain data with no OpenTelemetry type in it; the CLI encodes it.
 */
export interface TraceSpan {
  traceId: string;
  spanId: string;
  /** Null for the root of the trace: the run of a thread that is no fan-out's child. */
  parentSpanId: string | null;
  name: string;
  /** `client` for a call to a model; everything else runs in uwf or its agent. */
  kind: "internal" | "client";
  startMs: number;
  endMs: number;
  attributes: Record<string, SpanAttributeValue>;
  status: { code: "unset" | "error"; message?: string };
}

/** Which spans of a thread to build. */
export interface TraceScope {
  /** Only these steps' spans (with their turns and tool calls); all of the chain when absent. */
  steps?: ReadonlySet<string>;
  /** The thread's run span too (default true). */
  run?: boolean;
}

/** Where a thread's spans hang: its trace, and the span its run span is a child of. */
interface Placement {
  traceId: string;
  parentSpanId: string | null;
}

/** What an agent step's detail node says, as far as it says it (adapters may record less). */
interface DetailFacts {
  adapter: string | null;
  model: string | null;
  sessionId: string | null;
  turns: unknown[];
  failure: string[];
}

/**
 * The spans of a thread's trace, rebuilt from history alone: the run (`invoke_workflow`), one
 * span per step (`invoke_agent <role>` for an agent's, `<kind> <role>` for a human's, a
 * script's or a join's), and under an agent step its model turns (`chat <model>`) and tool
 * calls (`execute_tool <name>`) where its detail records them. Every id is derived from a node
 * hash, so building twice gives the same spans. A fan-out child's run hangs under the parent's
 * step that fanned out, in the parent's trace. Turns and tool calls carry no times of their
 * own in history: they share their step's time evenly, in order (`uwf.timing: estimated`).
 */
export async function threadTrace(
  store: Store,
  thread: string,
  scope: TraceScope = {},
): Promise<TraceSpan[]> {
  const pointer = await store.threads.get(thread);
  const place = await placement(store, pointer);
  const start = await store.cas.getPayload<StartPayload>(pointer.start, "start");
  const runSpanId = runSpanIdOf(pointer.start);
  // Newest first as the chain is walked; oldest first in the trace, after the run.
  const steps: TraceSpan[][] = [];
  const wanted = scope.steps;
  let number = pointer.steps;
  let lastMs = start.createdAtMs;
  let left = wanted?.size ?? Number.POSITIVE_INFINITY;
  const head = pointer.head === pointer.start ? null : pointer.head;
  for await (const { hash, step } of walkBack(store.cas, head)) {
    if (number === pointer.steps) lastMs = step.completedAtMs;
    if (wanted === undefined || wanted.has(hash)) {
      steps.push(await stepSpans(store, place.traceId, runSpanId, hash, step, number));
      left--;
    }
    number--;
    // The run span needs only the head's time, read first.
    if (left === 0) break;
  }
  const spans = steps.reverse().flat();
  if (scope.run === false) return spans;
  const endMs = Math.max(lastMs, start.createdAtMs);
  return [runSpan(pointer, place, runSpanId, start.createdAtMs, endMs), ...spans];
}

/**
 * A thread's whole trace: its spans and those of its fan-out children (and theirs), which
 * hang in the same trace. `uwf thread trace` exports this.
 */
export async function familyTrace(
  store: Store,
  thread: string,
): Promise<{ threads: string[]; spans: TraceSpan[] }> {
  const threads = await withFanoutChildren(store, [thread]);
  const spans: TraceSpan[] = [];
  for (const id of threads) spans.push(...(await threadTrace(store, id)));
  return { threads, spans };
}

/** A fan-out child joins its top parent's trace, its run under the step that fanned it out. */
async function placement(store: Store, pointer: ThreadPointer): Promise<Placement> {
  const own = { traceId: traceIdOf(pointer.start), parentSpanId: null };
  if (pointer.parent === undefined) return own;
  let parent: ThreadPointer;
  try {
    parent = await store.threads.get(pointer.parent.thread);
  } catch {
    // The parent is gone from this store (removed, or only the child was imported).
    return own;
  }
  const { traceId } = await placement(store, parent);
  const from = pointer.parent.step;
  return {
    traceId,
    parentSpanId: from === parent.start ? runSpanIdOf(parent.start) : stepSpanIdOf(from),
  };
}

function runSpan(
  pointer: ThreadPointer,
  place: Placement,
  spanId: string,
  startMs: number,
  endMs: number,
): TraceSpan {
  const attributes: Record<string, SpanAttributeValue> = {
    [GEN_AI.operationName]: GEN_AI_OPERATION.invokeWorkflow,
    [GEN_AI.workflowName]: pointer.workflow,
    "uwf.thread.id": pointer.thread,
    "uwf.thread.status": pointer.status,
    "uwf.thread.steps": pointer.steps,
    "uwf.workflow.hash": pointer.workflowHash,
    "uwf.start.hash": pointer.start,
  };
  if (pointer.title !== undefined) attributes["uwf.thread.title"] = pointer.title;
  if (pointer.parent !== undefined) {
    attributes["uwf.parent.thread"] = pointer.parent.thread;
    attributes["uwf.fanout.index"] = pointer.parent.index;
  }
  // A fork a race made (`thread race`): which race, and the agent it ran.
  if (pointer.race !== undefined) {
    attributes["uwf.race.id"] = pointer.race.id;
    attributes["uwf.race.agent"] = pointer.race.agent;
  }
  // Totals under uwf's own names: backends that add up gen_ai.usage.* over a trace would
  // otherwise count every step twice.
  if (pointer.usage !== undefined) addUsage(attributes, pointer.usage, "uwf.usage.");
  const failed = pointer.suspended?.kind === "failure";
  return {
    traceId: place.traceId,
    spanId,
    parentSpanId: place.parentSpanId,
    name: `${GEN_AI_OPERATION.invokeWorkflow} ${pointer.workflow}`,
    kind: "internal",
    startMs,
    endMs,
    attributes,
    status: failed
      ? { code: "error", message: pointer.suspended?.reason ?? "the agent failed" }
      : { code: "unset" },
  };
}

/** A step's span, and the spans of its turns and tool calls. */
async function stepSpans(
  store: Store,
  traceId: string,
  runSpanId: string,
  hash: string,
  step: StepPayload,
  number: number,
): Promise<TraceSpan[]> {
  const output = await store.cas.getPayload<Record<string, unknown>>(step.output);
  const status = typeof output[STATUS_FIELD] === "string" ? output[STATUS_FIELD] : "";
  const writtenBy = engineStepKind(step.agent);
  const detail = writtenBy === null ? await detailFacts(store, step.detail) : null;
  const spanId = stepSpanIdOf(hash);
  const attributes: Record<string, SpanAttributeValue> = {
    "uwf.step.hash": hash,
    "uwf.step.role": step.role,
    "uwf.step.status": status,
    "uwf.step.agent": step.agent,
    "uwf.step.number": number,
    "uwf.step.attempts": step.attempts,
  };
  // What the step did to its git working tree (receipts): the commits and its diff stat.
  if (step.git !== undefined) {
    const { before, after, diffStat } = step.git;
    if (before.commit !== null) attributes["uwf.git.commit.before"] = before.commit;
    if (after.commit !== null) attributes["uwf.git.commit.after"] = after.commit;
    attributes["uwf.git.tree.after"] = after.tree;
    attributes["uwf.git.files_changed"] = diffStat.files;
    attributes["uwf.git.insertions"] = diffStat.insertions;
    attributes["uwf.git.deletions"] = diffStat.deletions;
  }
  if (writtenBy === null) {
    attributes[GEN_AI.operationName] = GEN_AI_OPERATION.invokeAgent;
    attributes[GEN_AI.agentName] = step.role;
  }
  if (detail?.adapter) attributes["uwf.agent.adapter"] = detail.adapter;
  if (detail?.model) {
    attributes[GEN_AI.requestModel] = detail.model;
    attributes[GEN_AI.responseModel] = detail.model;
  }
  if (detail?.sessionId) attributes[GEN_AI.conversationId] = detail.sessionId;
  addUsage(attributes, step.usage, "gen_ai.usage.");
  let error: { type: string; message: string } | null = null;
  if (detail !== null && detail.failure.length > 0) {
    error = { type: "invalid_output", message: detail.failure.join("; ") };
  } else if (writtenBy === "join") {
    const failed = failedChildren(output);
    if (failed > 0)
      error = { type: "fanout_child_failed", message: `${failed} of its fan-out children failed` };
  }
  if (error !== null) attributes[GEN_AI.errorType] = error.type;
  const spans: TraceSpan[] = [
    {
      traceId,
      spanId,
      parentSpanId: runSpanId,
      name:
        writtenBy === null
          ? `${GEN_AI_OPERATION.invokeAgent} ${step.role}`
          : `${writtenBy} ${step.role}`,
      kind: "internal",
      startMs: step.startedAtMs,
      endMs: step.completedAtMs,
      attributes,
      status: error === null ? { code: "unset" } : { code: "error", message: error.message },
    },
  ];
  if (detail !== null) {
    const turns = await readTurns(store, detail.turns);
    spans.push(...turnSpans(traceId, spanId, hash, step, detail.model, turns));
  }
  return spans;
}

/** The kind of a step uwf itself wrote (no agent ran it), or null for an agent's step. */
function engineStepKind(agent: string): "human" | "script" | "join" | null {
  if (agent === HUMAN_AGENT) return "human";
  if (agent === SCRIPT_AGENT) return "script";
  if (agent === JOIN_AGENT) return "join";
  return null;
}

function failedChildren(output: Record<string, unknown>): number {
  const results = Array.isArray(output.results) ? output.results : [];
  return results.filter((r) => isPlainObject(r) && r.status === "failed").length;
}

/**
 * The spans of a step's model turns and, beside each turn, its tool calls: the step's time is
 * shared evenly among the turns, each turn's first half (all of it without tools) for its model
 * call, the other half shared among its tool calls. Siblings under the step, as the GenAI
 * conventions place `chat` and `execute_tool` under `invoke_agent`.
 */
function turnSpans(
  traceId: string,
  stepSpanId: string,
  hash: string,
  step: StepPayload,
  model: string | null,
  turns: TurnPayload[],
): TraceSpan[] {
  const spans: TraceSpan[] = [];
  const slot = (step.completedAtMs - step.startedAtMs) / Math.max(turns.length, 1);
  turns.forEach((turn, index) => {
    const from = step.startedAtMs + slot * index;
    const calls = turn.toolCalls;
    const modelEnd = calls.length === 0 ? from + slot : from + slot / 2;
    const attributes: Record<string, SpanAttributeValue> = {
      [GEN_AI.operationName]: GEN_AI_OPERATION.chat,
      "uwf.turn.index": index,
      "uwf.timing": "estimated",
    };
    if (model) {
      attributes[GEN_AI.requestModel] = model;
      attributes[GEN_AI.responseModel] = model;
    }
    if (isPlainObject(turn.usage))
      addUsage(attributes, turn.usage as Partial<Usage>, "gen_ai.usage.");
    spans.push({
      traceId,
      spanId: turnSpanIdOf(hash, index),
      parentSpanId: stepSpanId,
      name: model ? `${GEN_AI_OPERATION.chat} ${model}` : GEN_AI_OPERATION.chat,
      kind: "client",
      startMs: Math.round(from),
      endMs: Math.round(modelEnd),
      attributes,
      status: { code: "unset" },
    });
    const callSlot = (from + slot - modelEnd) / Math.max(calls.length, 1);
    calls.forEach((call, callIndex) => {
      const callFrom = modelEnd + callSlot * callIndex;
      const failed = call.isError === true;
      spans.push({
        traceId,
        spanId: turnSpanIdOf(hash, index, callIndex),
        parentSpanId: stepSpanId,
        name: `${GEN_AI_OPERATION.executeTool} ${call.name}`,
        kind: "internal",
        startMs: Math.round(callFrom),
        endMs: Math.round(callFrom + callSlot),
        attributes: {
          [GEN_AI.operationName]: GEN_AI_OPERATION.executeTool,
          [GEN_AI.toolName]: call.name,
          [GEN_AI.toolType]: "function",
          "uwf.turn.index": index,
          "uwf.timing": "estimated",
          ...(failed ? { [GEN_AI.errorType]: "tool_error" } : {}),
        },
        status: failed ? { code: "error", message: `${call.name} failed` } : { code: "unset" },
      });
    });
  });
  return spans;
}

/** Usage figures as attributes; unknown ones (null) are left out, never written as 0. */
function addUsage(
  attributes: Record<string, SpanAttributeValue>,
  usage: Partial<Usage>,
  prefix: "gen_ai.usage." | "uwf.usage.",
): void {
  const tokens: [keyof Usage, string][] = [
    ["inputTokens", "input_tokens"],
    ["outputTokens", "output_tokens"],
    ["cacheReadTokens", "cache_read.input_tokens"],
    ["cacheWriteTokens", "cache_creation.input_tokens"],
  ];
  for (const [field, name] of tokens) {
    const value = usage[field];
    if (typeof value === "number") attributes[`${prefix}${name}`] = value;
  }
  if (typeof usage.costUsd === "number") attributes["uwf.usage.cost_usd"] = usage.costUsd;
}

/** What a detail node says; an adapter-defined detail may be anything, or be gone. */
async function detailFacts(store: Store, hash: string): Promise<DetailFacts> {
  let detail: unknown;
  try {
    detail = await store.cas.getPayload<unknown>(hash);
  } catch {
    detail = null;
  }
  const record = isPlainObject(detail) ? detail : {};
  const text = (value: unknown): string | null =>
    typeof value === "string" && value !== "" ? value : null;
  return {
    adapter: text(record.adapter),
    model: text(record.model),
    sessionId: text(record.sessionId),
    turns: Array.isArray(record.turns) ? record.turns : [],
    failure: Array.isArray(record.failure)
      ? record.failure.filter((f) => typeof f === "string")
      : [],
  };
}

/** A detail's turns: `turn` nodes by hash, or inline records an adapter kept in its detail. */
async function readTurns(store: Store, turns: unknown[]): Promise<TurnPayload[]> {
  const read: TurnPayload[] = [];
  for (const turn of turns) {
    let payload: unknown = turn;
    if (typeof turn === "string" && HASH_PATTERN.test(turn)) {
      try {
        payload = await store.cas.getPayload<unknown>(turn);
      } catch {
        continue;
      }
    }
    if (!isPlainObject(payload)) continue;
    const calls = Array.isArray(payload.toolCalls) ? payload.toolCalls : [];
    read.push({
      text: typeof payload.text === "string" ? payload.text : "",
      toolCalls: calls
        .filter((c): c is Record<string, unknown> => isPlainObject(c) && typeof c.name === "string")
        .map((c) => ({ name: c.name as string, ...(c.isError === true ? { isError: true } : {}) })),
      usage: isPlainObject(payload.usage) ? payload.usage : null,
    });
  }
  return read;
}
