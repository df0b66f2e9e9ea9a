import type { StepDetailPayload, TurnPayload } from "@united-workforce/protocol";
import type { SessionMap, ToolCallRecord } from "../session/sessions.js";
import type { AttemptRecord } from "./attempts.js";
import type { DeliveredGuidance } from "./guidance.js";
import type { AgentRunResult } from "./types.js";

/** The step detail before its turns are stored: the turns stay payloads until then. */
export interface DetailDraft {
  detail: Omit<StepDetailPayload, "turns">;
  turns: TurnPayload[];
}

/**
 * The step detail (builtin `stepDetail` schema): the adapter's own records merged over
 * attempts (later keys win, turns concatenated), every attempt's raw output, and the thread's
 * sessions with this role's updated, so nothing an agent said is lost even when the step
 * fails, and the role's next visit can resume its session.
 */
export function buildDetail(options: {
  adapter: string;
  role: string;
  cwd: string;
  results: AgentRunResult[];
  records: AttemptRecord[];
  rawOutput: string;
  /** The sessions recorded up to the step this one follows. */
  sessions: SessionMap;
  /** The `thread steer` notes the agent got while it ran. */
  guidance?: readonly DeliveredGuidance[];
  failure?: string[];
}): DetailDraft {
  const merged: Record<string, unknown> = {};
  const turns: TurnPayload[] = [];
  for (const result of options.results) {
    const { turns: resultTurns, ...rest } = result.detail ?? {};
    Object.assign(merged, rest);
    if (Array.isArray(resultTurns)) turns.push(...resultTurns.map(toTurnPayload));
  }
  const model = typeof merged.model === "string" ? merged.model : null;
  const sessionId = typeof merged.sessionId === "string" ? merged.sessionId : null;
  const sessions: SessionMap = { ...options.sessions };
  if (sessionId !== null) {
    sessions[options.role] = { adapter: options.adapter, sessionId, cwd: options.cwd, model };
  }
  const detail = toJson({
    ...merged,
    adapter: options.adapter,
    model,
    sessionId,
    sessions,
    rawOutput: options.rawOutput,
    attempts: options.records,
    ...(options.guidance?.length ? { guidance: options.guidance } : {}),
    ...(options.failure ? { failure: options.failure } : {}),
  }) as Omit<StepDetailPayload, "turns">;
  return { detail, turns };
}

/** An adapter's turn, made to fit the `turn` schema whatever it left out. */
function toTurnPayload(turn: unknown): TurnPayload {
  const record = (typeof turn === "object" && turn !== null ? turn : {}) as Record<string, unknown>;
  const calls = Array.isArray(record.toolCalls) ? (record.toolCalls as ToolCallRecord[]) : [];
  return toJson({
    text: typeof record.text === "string" ? record.text : "",
    toolCalls: calls.map((call) => ({
      name: typeof call?.name === "string" ? call.name : "unknown",
      input: call?.input ?? null,
      ...(typeof call?.output === "string" ? { output: call.output } : {}),
      ...(typeof call?.isError === "boolean" ? { isError: call.isError } : {}),
    })),
    usage: typeof record.usage === "object" && record.usage !== null ? record.usage : null,
  }) as TurnPayload;
}

/** Drop `undefined` and other non-JSON values an adapter may have left in its record. */
function toJson(value: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}
