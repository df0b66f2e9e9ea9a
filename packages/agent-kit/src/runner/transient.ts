import { ADAPTER_TRANSIENT_EXIT } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import { ModelRequestError } from "../openai/errors.js";
import { AgentExit } from "./types.js";

/**
 * Transient agent failures (issue 9, item 6): the one place that decides whether an agent's
 * failure may pass by itself (a rate limit, an overloaded or failing model server, a refused
 * connection, a usage limit that resets) and how long the agent was told to wait. Every bundled
 * adapter reports such a failure as exit 75 (`ADAPTER_TRANSIENT_EXIT`) with a
 * `retry-after: <seconds>` stderr line when a wait is known; the engine retries the step.
 */

/** What an adapter knows about a failure of its agent. */
export interface FailureEvidence {
  /** The HTTP status of the model API, when the agent or the client reported one. */
  status?: number | null;
  /** The agent's own words about the failure (an error event, a result text, stderr). */
  text?: string | null;
  /** The model API could not be reached (connection refused or reset). */
  network?: boolean;
  /** The wait the API asked for (a Retry-After header), in ms. */
  retryAfterMs?: number | null;
}

export interface TransientVerdict {
  /** Why the failure is transient, e.g. `HTTP 429`, `usage limit`. */
  reason: string;
  /** The wait asked for, in ms, when the API or the agent's message gave one. */
  retryAfterMs: number | null;
}

/** Permanent although they look like a limit: money or a plan, not time, lifts them. */
const PERMANENT_TEXT =
  /insufficient[_ ]quota|billing|credit balance|purchase (?:more )?credits? to continue|exceeded your current quota/i;

/** A connection that failed for a reason time does not cure: a wrong host name, bad TLS. */
const MISCONFIGURED_CONNECTION =
  /ENOTFOUND|getaddrinfo|invalid url|unsupported protocol|certificate|CERT_|self[- ]signed/i;

const TRANSIENT_TEXT: [RegExp, string][] = [
  [/usage[ _-]?limit|hit your (?:usage )?limit|limit reached\|\d{9,}/i, "usage limit"],
  [/rate[ _-]?limit|too many requests|requests per (?:minute|day)/i, "rate limit"],
  [/overloaded|high demand|(?:at|over) capacity|resource[_ ]exhausted/i, "overloaded"],
  [
    /ECONNRESET|ECONNREFUSED|connection (?:reset|refused)|socket hang up|unable to connect to (?:the )?api|connectionrefused/i,
    "connection failed",
  ],
  [/service unavailable|bad gateway|gateway time-?out|temporarily unavailable/i, "server error"],
];

/** `HTTP 429`, `status: 503`, `API Error: 529`, `(429)` after an API error, `last status: 500`. */
const STATUS_IN_TEXT =
  /(?:\bHTTP|\bstatus(?: code)?|API Error|Request rejected)\W{0,4}(?:\(\s*)?(429|5\d\d)\b/i;

/** A status that says "try again later": too many requests, or the server failed. */
export function isTransientStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/**
 * Whether a failure is transient, and the wait it asks for. Null: an ordinary failure (a bad
 * request, a refused key, a model that answered nonsense), which retrying would not cure.
 */
export function classifyFailure(
  evidence: FailureEvidence,
  nowMs: number = Date.now(),
): TransientVerdict | null {
  const text = evidence.text ?? "";
  if (PERMANENT_TEXT.test(text)) return null;
  let reason: string | null = null;
  if (typeof evidence.status === "number") {
    if (isTransientStatus(evidence.status)) reason = `HTTP ${evidence.status}`;
    else if (evidence.status >= 400 && !/usage[ _-]?limit/i.test(text)) return null;
  }
  if (reason === null && evidence.network) {
    if (MISCONFIGURED_CONNECTION.test(text)) return null;
    reason = "connection failed";
  }
  if (reason === null) {
    const status = STATUS_IN_TEXT.exec(text);
    if (status) reason = `HTTP ${status[1]}`;
  }
  if (reason === null) {
    for (const [pattern, name] of TRANSIENT_TEXT) {
      if (pattern.test(text)) {
        reason = name;
        break;
      }
    }
  }
  if (reason === null) return null;
  const asked = evidence.retryAfterMs ?? null;
  return { reason, retryAfterMs: asked !== null && asked >= 0 ? asked : waitInText(text, nowMs) };
}

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  sec: 1_000,
  second: 1_000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hour: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
};

/**
 * The wait a failure message names, in ms, or null: `retry-after: 30`, `retry after 30
 * seconds`, `try again in 2 hours 5 minutes`, `Please retry in 30.5s`, a reset epoch (`usage
 * limit reached|1767225600`), a reset timestamp (`resets at 2026-01-01T11:00:00Z`), or a time of day (`try again at 6:05 AM`, `resets 3pm`), taken as the next such time
 * on this machine's clock.
 */
export function waitInText(text: string, nowMs: number = Date.now()): number | null {
  const header = /retry-after:?\s*(\d+(?:\.\d+)?)\s*(ms\b)?/i.exec(text);
  if (header) return Math.ceil(Number(header[1]) * (header[2] ? 1 : 1000));
  const epoch = /limit reached\|(\d{9,13})\b/i.exec(text);
  if (epoch) {
    const value = Number(epoch[1]);
    const atMs = value < 1e12 ? value * 1000 : value;
    return Math.max(0, atMs - nowMs);
  }
  const inWords =
    /(?:try again|retry|resets?|available again)\s+(?:in|after)\s+((?:\d+(?:\.\d+)?\s*[a-z]+[\s,]*(?:and\s+)?)+)/i.exec(
      text,
    );
  if (inWords) {
    let total = 0;
    for (const part of inWords[1]!.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/gi)) {
      const word = part[2]!.toLowerCase();
      const ms = UNIT_MS[word] ?? UNIT_MS[word.replace(/s$/, "")];
      if (ms === undefined) break;
      total += Number(part[1]) * ms;
    }
    if (total > 0) return Math.ceil(total);
  }
  const iso =
    /(?:try again|retry|resets?|available again)(?:\s+(?:at|after|on))?\s+(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))/i.exec(
      text,
    );
  if (iso) {
    const atMs = Date.parse(iso[1]!);
    if (!Number.isNaN(atMs)) return Math.max(0, atMs - nowMs);
  }
  const at =
    /(?:try again|resets?|reset|available again)(?:\s+at)?\s+(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?/i.exec(
      text,
    );
  if (at && (at[2] !== undefined || at[3] !== undefined)) {
    let hours = Number(at[1]);
    const minutes = Number(at[2] ?? 0);
    const half = at[3]?.toLowerCase().replaceAll(".", "");
    if (half === "pm" && hours < 12) hours += 12;
    if (half === "am" && hours === 12) hours = 0;
    if (hours > 23 || minutes > 59) return null;
    const target = new Date(nowMs);
    target.setHours(hours, minutes, 0, 0);
    if (target.getTime() <= nowMs) target.setDate(target.getDate() + 1);
    return target.getTime() - nowMs;
  }
  return null;
}

/**
 * A transient failure of the agent: the process exits 75 and prints its message, then a
 * `retry-after: <seconds>` line when the wait is known (the line uwf reads).
 */
export class TransientAgentError extends AgentExit {
  readonly retryAfterMs: number | null;

  constructor(message: string, retryAfterMs: number | null) {
    const wait = retryAfterMs === null ? "" : `\nretry-after: ${Math.ceil(retryAfterMs / 1000)}`;
    super(ADAPTER_TRANSIENT_EXIT, `${message} (transient: uwf may run the step again)${wait}`);
    this.name = "TransientAgentError";
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * The error an adapter throws when its agent failed: a `TransientAgentError` (exit 75) when
 * `classifyFailure` finds the failure transient, else an AGENT_FAILED `UwfError` with the hint.
 */
export function agentFailure(
  message: string,
  evidence: FailureEvidence,
  hint: string,
): TransientAgentError | UwfError {
  const verdict = classifyFailure(evidence);
  if (verdict) return new TransientAgentError(message, verdict.retryAfterMs);
  return new UwfError("AGENT_FAILED", message, { hint });
}

/**
 * The transient exit for an error that reached the runner, or null: the OpenAI-compatible
 * client's final 429/5xx or unreachable server (uwf-builtin, and any adapter using it).
 */
export function transientExitFor(error: unknown): TransientAgentError | null {
  if (error instanceof TransientAgentError) return error;
  if (!(error instanceof ModelRequestError)) return null;
  if (error.kind !== "http" && error.kind !== "network") return null;
  const verdict = classifyFailure({
    status: error.status,
    network: error.kind === "network",
    text: error.message,
    retryAfterMs: error.retryAfterMs,
  });
  return verdict ? new TransientAgentError(error.message, verdict.retryAfterMs) : null;
}
