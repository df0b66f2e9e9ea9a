import { setTimeout as delay } from "node:timers/promises";

/** How a request is retried after a 429, a 5xx or a network error. */
export interface RetryPolicy {
  /** Tries in all, the first included: 1 means no retry. */
  attempts: number;
  /** The wait before the first retry; each later one doubles it. */
  baseDelayMs: number;
  /** No wait is longer; a provider asking for more is not retried (see `retryDelay`). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 1_000, maxDelayMs: 60_000 };

/** Waits `ms` or rejects when `signal` aborts; tests inject their own to record the delays. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const abortableSleep: Sleep = async (ms, signal) => {
  await delay(ms, undefined, signal ? { signal } : {});
};

/**
 * The wait before try `failedAttempt + 1`: exponential (base × 2^(n-1), capped), with jitter
 * so that clients that failed together do not come back together (between half and all of it).
 */
export function backoffDelay(
  failedAttempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failedAttempt - 1));
  return Math.round(exponential * (0.5 + random() * 0.5));
}

/**
 * The wait a provider asks for, in ms: `retry-after-ms` (OpenAI), else `Retry-After` as
 * seconds or as an HTTP date. Null when there is none or it cannot be read.
 */
export function requestedDelay(
  headers: { get(name: string): string | null },
  nowMs: number,
): number | null {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "") {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  const after = headers.get("retry-after");
  if (after === null || after.trim() === "") return null;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.ceil(seconds * 1000) : null;
  const date = Date.parse(after);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - nowMs);
}
