import {
  type AcpAgent,
  classifyFailure,
  explainFailure,
  RpcClosedError,
  RpcError,
  TransientAgentError,
} from "@united-workforce/agent-kit";
import { errorMessage, UwfError } from "@united-workforce/util";

// How an ACP agent's failures are read and worded: its error responses, the API errors some
// agents give as an answer, a turn stopped without one. A rate limit or an overload in the
// agent's words is a transient failure (exit 75), which uwf retries.

const ERROR_TEXT_CHARS = 600;

/** The agent's failure, explained from its process (its stderr, its exit) when it has one. */
export async function failed(
  agent: AcpAgent,
  what: string,
  error: unknown,
  options: { transient?: boolean } = {},
): Promise<Error> {
  return agentFailure(what, await explainFailure(agent.process, error), options);
}

/** The agent's failure; with `transient`, a rate limit or overload in its words exits 75. */
export function agentFailure(
  what: string,
  error: unknown,
  options: { transient?: boolean } = {},
): Error {
  const detail = error instanceof RpcError ? rpcText(error) : errorMessage(error);
  const message = `${what}: ${clip(detail)}`;
  if (options.transient && !(error instanceof RpcClosedError)) {
    const verdict = classifyFailure({ text: detail });
    if (verdict) return new TransientAgentError(message, verdict.retryAfterMs);
  }
  return new UwfError("AGENT_FAILED", message, {
    hint:
      error instanceof RpcClosedError
        ? "See the agent's stderr above; fix what it says, then run `uwf thread resume`."
        : "Check the agent's model, provider and key, then run `uwf thread resume`.",
    cause: error,
  });
}

/**
 * An error response's message, with the real reason when the agent put it in `data`:
 * claude-agent-acp as `details`, codex-acp as `message` (its text for a usage limit, with the
 * reset) and `codexErrorInfo` (e.g. `usageLimitExceeded`).
 */
function rpcText(error: RpcError): string {
  const data = (typeof error.data === "object" && error.data !== null ? error.data : {}) as Record<
    string,
    unknown
  >;
  const reasons = [data.details ?? data.message, data.codexErrorInfo].filter(
    (reason): reason is string => typeof reason === "string" && reason !== error.message,
  );
  return reasons.length > 0 ? `${error.message} (${reasons.join("; ")})` : error.message;
}

/**
 * The failure lines codex prints for a model request that failed for good, which codex-acp
 * (2.6) sends as the turn's answer with a normal `end_turn`: codex's own error texts, of which
 * these carry the HTTP status or the kind of failure (`classifyFailure` reads both).
 */
const CODEX_FAILURE_LINE =
  /^(?:exceeded retry limit, last status: \d{3}\b|unexpected status \d{3}\b|we['\u2019]re currently experiencing high demand|selected model is at capacity|you['\u2019]ve hit your usage limit|quota exceeded\b|stream disconnected before completion\b)/i;

/**
 * The error in an answer that is only an error report, else null: a JSON error object, or one
 * of codex's failure lines. Neither can be a step's output, which starts with its frontmatter.
 */
export function apiErrorIn(answer: string): string | null {
  const text = answer.trim();
  if (CODEX_FAILURE_LINE.test(text)) return text;
  if (!text.startsWith("{")) return null;
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === "object" && value !== null && "error" in value) {
      const error = (value as { error: unknown }).error;
      const message =
        typeof error === "object" && error !== null
          ? (error as { message?: unknown }).message
          : error;
      return typeof message === "string" ? message : JSON.stringify(error);
    }
  } catch {
    // Not JSON: an ordinary (if odd) answer.
  }
  return null;
}

/** What to do when the agent ended its turn without answering. */
export function stopHint(stopReason: string): string {
  switch (stopReason) {
    case "refusal":
      return "The agent refused the task; rephrase it with `uwf thread resume -p …`.";
    case "max_tokens":
    case "max_turn_requests":
      return "The agent ran out of tokens or turns; raise its limits or split the task, then `uwf thread resume`.";
    case "cancelled":
      return "The agent cancelled the turn by itself; run `uwf thread resume` to try again.";
    default:
      return "Run `uwf thread resume` to try again.";
  }
}

/** An error in one short line, for progress. */
export function shortMessage(error: unknown): string {
  return clip(error instanceof RpcError ? rpcText(error) : errorMessage(error), 200);
}

/** `text`, cut to `limit` characters. */
export function clip(text: string, limit = ERROR_TEXT_CHARS): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}
