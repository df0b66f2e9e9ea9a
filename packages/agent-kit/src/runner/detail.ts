import type { AttemptRecord } from "./attempts.js";
import type { AgentRunResult } from "./types.js";

/**
 * The detail node payload (builtin `detail` schema): the adapter's own records merged over
 * attempts (later keys win, turns concatenated), plus every attempt's raw output, so nothing an
 * agent said is lost even when the step fails.
 */
export function buildDetail(options: {
  adapter: string;
  results: AgentRunResult[];
  records: AttemptRecord[];
  rawOutput: string;
  failure?: string[];
}): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  const turns: unknown[] = [];
  for (const result of options.results) {
    const { turns: resultTurns, ...rest } = result.detail ?? {};
    Object.assign(merged, rest);
    if (Array.isArray(resultTurns)) turns.push(...resultTurns);
  }
  const detail: Record<string, unknown> = {
    ...merged,
    adapter: options.adapter,
    model: typeof merged.model === "string" ? merged.model : null,
    sessionId: typeof merged.sessionId === "string" ? merged.sessionId : null,
    turns,
    rawOutput: options.rawOutput,
    attempts: options.records,
  };
  if (options.failure) detail.failure = options.failure;
  return toJson(detail);
}

/** Drop `undefined` and other non-JSON values an adapter may have left in its record. */
function toJson(value: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}
