import { sleepUnlessAborted } from "@united-workforce/util";

/** The pause before the second connection attempt; it doubles for each next one, up to the cap. */
export const FIRST_RETRY_PAUSE_MS = 250;
export const MAX_RETRY_PAUSE_MS = 2_000;

/** Socket errors that a server restarting, overloaded or briefly unreachable gives. */
const TRANSIENT_SOCKET_ERRORS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);
/** Too many connections, and a server still starting up. */
const TRANSIENT_SQL_STATES = new Set(["53300", "57P03"]);
/** The driver's words for a connect timeout and a connection dropped while it was made. */
const TRANSIENT_MESSAGE =
  /timeout expired|connection timeout|timeout exceeded when trying to connect|Connection terminated unexpectedly/i;

/**
 * Whether a failed connection attempt may succeed when tried again: refused or reset, not
 * accepted in time, the server out of connections or starting up. Anything else (bad
 * credentials, a missing database, a malformed URL, an unknown host) fails at once.
 */
export function isTransientConnectError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") {
    return TRANSIENT_SQL_STATES.has(code) || TRANSIENT_SOCKET_ERRORS.has(code);
  }
  return error instanceof Error && TRANSIENT_MESSAGE.test(error.message);
}

/**
 * The pause after failed attempt `attempt` (1-based): half of the doubling step fixed, the other
 * half random, so processes refused together do not all come back together.
 * `random` returns a number in [0, 1).
 */
export function retryPauseMs(attempt: number, maxPauseMs: number, random: () => number): number {
  const step = Math.min(FIRST_RETRY_PAUSE_MS * 2 ** (attempt - 1), maxPauseMs);
  return Math.round(step / 2 + (random() * step) / 2);
}

export interface RetryConnectOptions {
  /** Attempts in all (at least one). */
  attempts: number;
  /** The longest pause between two attempts. */
  maxPauseMs: number;
  /** Aborting it ends the pause at once; the next step then throws `interrupted()`. */
  signal: AbortSignal;
  interrupted: () => Error;
  /** The error to throw once an attempt fails for good, with how many were made. */
  giveUp: (error: unknown, attempts: number) => Error;
  /** Injected by tests: how to wait, and the jitter's source. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
}

/** `connect()`, tried again after a jittered, doubling pause while its errors are transient. */
export async function retryConnect<T>(
  connect: () => Promise<T>,
  options: RetryConnectOptions,
): Promise<T> {
  const attempts = Math.max(1, Math.floor(options.attempts));
  const sleep = options.sleep ?? sleepUnlessAborted;
  const random = options.random ?? Math.random;
  for (let attempt = 1; ; attempt++) {
    if (options.signal.aborted) throw options.interrupted();
    try {
      return await connect();
    } catch (error) {
      if (attempt >= attempts || !isTransientConnectError(error)) {
        throw options.giveUp(error, attempt);
      }
    }
    await sleep(retryPauseMs(attempt, options.maxPauseMs, random), options.signal);
  }
}
