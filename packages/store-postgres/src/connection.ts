import type { StoreTimeouts } from "@united-workforce/store";
import { maskUrl } from "@united-workforce/store/backend";
import { errorMessage, isUwfError, UwfError } from "@united-workforce/util";
import pg, { type Pool, type PoolClient, type QueryConfig, type QueryResultRow } from "pg";
import { MAX_RETRY_PAUSE_MS, retryConnect } from "./connect-retry.js";

/** What runs SQL: the pool, or one client inside a transaction. */
export interface Sql {
  query<R extends QueryResultRow>(text: string, params?: readonly unknown[]): Promise<R[]>;
  /** Rows affected (UPDATE/DELETE/INSERT). */
  execute(text: string, params?: readonly unknown[]): Promise<number>;
}

/** One store's connection: a small pool, created when the store is opened. */
export interface Database extends Sql {
  /** The URL with its password masked, for every message and `locate`. */
  readonly location: string;
  /** Run `work` in a transaction on one client; rolled back if it throws. */
  transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T>;
  /** Run `work` on one client outside a transaction (session-level advisory locks). */
  withClient<T>(work: (sql: Sql) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * Most uwf processes run a handful of statements one after another, so the pool rarely opens
 * more than one connection; the others serve statements that overlap (a lease renewal during a
 * transaction, the step's adapter reading while its exec writes) and are closed once done, so
 * a process in flight holds one of the server's slots (see `withClient`). Idle connections
 * never keep a finished process alive (`allowExitOnIdle`).
 */
const POOL_MAX = 3;

/** Every wait on the server is bounded (config.yaml `postgres:` changes these). */
export const DEFAULT_TIMEOUTS: StoreTimeouts = {
  connectTimeoutMs: 10_000,
  // About ten seconds of pauses: long enough for a busy server to free a connection slot.
  connectAttempts: 8,
  statementTimeoutMs: 60_000,
  lockTimeoutMs: 30_000,
};

/**
 * Once the command is interrupted, what it still asks of the store (releasing its lease) gets
 * one attempt and this long: a server that answers does so in milliseconds, one that does not
 * must not hold up the exit.
 */
const AFTER_ABORT_MS = 1_000;

const NEVER = new AbortController().signal;

export interface ConnectOptions {
  timeouts?: Partial<StoreTimeouts>;
  /** Aborting it rejects every pending wait at once (INTERRUPTED) and drops its connections. */
  signal?: AbortSignal;
}

/** Open a pool for `url`. */
export async function connect(url: string, options: ConnectOptions = {}): Promise<Database> {
  const location = maskUrl(url);
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  let pool: Pool;
  try {
    pool = new pg.Pool({
      connectionString: url,
      max: POOL_MAX,
      idleTimeoutMillis: 10_000,
      connectionTimeoutMillis: timeouts.connectTimeoutMs,
      statement_timeout: timeouts.statementTimeoutMs,
      lock_timeout: timeouts.lockTimeoutMs,
      allowExitOnIdle: true,
      // A server that vanished without closing the socket is noticed instead of waited on.
      keepAlive: true,
      application_name: "uwf",
      // uwf's statements are small; JIT-compiling one the planner over-costs (a recursive walk)
      // takes hundreds of ms, far more than running it.
      options: "-c jit=off",
    });
  } catch (error) {
    throw unavailable(location, error, timeouts);
  }
  // A connection the server drops while idle emits here; the next query simply reconnects.
  pool.on("error", () => {});
  return new PoolDatabase(pool, location, timeouts, options.signal);
}

class PoolDatabase implements Database {
  readonly location: string;
  readonly #pool: Pool;
  readonly #timeouts: StoreTimeouts;
  readonly #signal: AbortSignal | undefined;
  #closed: Promise<void> | null = null;

  /** What each pending wait does on an abort: one listener for them all, however many wait. */
  readonly #waiting = new Set<() => void>();

  constructor(pool: Pool, location: string, timeouts: StoreTimeouts, signal?: AbortSignal) {
    this.#pool = pool;
    this.location = location;
    this.#timeouts = timeouts;
    this.#signal = signal;
    signal?.addEventListener(
      "abort",
      () => {
        for (const onAbort of this.#waiting) onAbort();
        this.#waiting.clear();
      },
      { once: true },
    );
  }

  query<R extends QueryResultRow>(text: string, params?: readonly unknown[]): Promise<R[]> {
    return this.withClient((sql) => sql.query<R>(text, params));
  }

  execute(text: string, params?: readonly unknown[]): Promise<number> {
    return this.withClient((sql) => sql.execute(text, params));
  }

  transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    return this.withClient(async (sql) => {
      await sql.execute("begin");
      let result: T;
      try {
        result = await work(sql);
      } catch (error) {
        await sql.execute("rollback").catch(() => {});
        throw error;
      }
      await sql.execute("commit");
      return result;
    });
  }

  async withClient<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    const afterAbort = this.#signal?.aborted === true;
    // A connection that arrives after the abort goes straight back, closed.
    const client = await this.#interruptible(this.#connect(afterAbort), (late) =>
      late.release(true),
    );
    const queryTimeoutMs = afterAbort
      ? AFTER_ABORT_MS
      : // The server ends a statement at statement_timeout; this catches one that cannot answer.
        this.#timeouts.statementTimeoutMs + this.#timeouts.connectTimeoutMs;
    let broken: Error | undefined;
    try {
      return await this.#interruptible(
        work(clientSql(client, this.location, this.#timeouts, queryTimeoutMs)),
        () => {},
      );
    } catch (error) {
      // A client whose connection failed, or whose statement was abandoned, must not go back to
      // the pool: releasing it with an error closes it.
      if (
        isUwfError(error) &&
        (error.code === "STORE_UNAVAILABLE" || error.code === "INTERRUPTED")
      ) {
        broken = error;
      }
      throw error;
    } finally {
      client.release(broken ?? this.#surplus());
    }
  }

  /**
   * Whether a client being released is one more than the process needs: another is idle
   * already and nobody waits for one. Closing it frees its server slot for other processes (a
   * hundred execs in flight then hold about a hundred slots, not up to three hundred).
   */
  #surplus(): boolean {
    return this.#pool.idleCount > 0 && this.#pool.waitingCount === 0;
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      const ended = this.#pool.end().catch(() => {});
      // After an abort a connection attempt may still be pending, which the pool would wait
      // for; the interrupted command must not.
      if (this.#signal?.aborted !== true) await ended;
    })();
    return this.#closed;
  }

  /**
   * A connection from the pool: an attempt that failed for a reason that may pass is retried
   * after a jittered pause that doubles (at most 2 s, and never longer than one attempt may
   * take), `connectAttempts` times in all, each attempt bounded by `connectTimeoutMs`. After an
   * abort: one short attempt.
   */
  #connect(afterAbort: boolean): Promise<PoolClient> {
    if (afterAbort) {
      return withDeadline(this.#pool.connect(), AFTER_ABORT_MS, (client) =>
        client.release(true),
      ).catch((error) => {
        throw unavailable(this.location, error, this.#timeouts);
      });
    }
    return retryConnect(() => this.#pool.connect(), {
      attempts: this.#timeouts.connectAttempts,
      maxPauseMs: Math.min(MAX_RETRY_PAUSE_MS, this.#timeouts.connectTimeoutMs),
      signal: this.#signal ?? NEVER,
      interrupted: () => this.#interrupted(),
      giveUp: (error, attempts) =>
        afterAttempts(storeError(this.location, error, this.#timeouts), attempts),
    });
  }

  /**
   * `work`, or INTERRUPTED as soon as the signal aborts; `abandon` then gets what `work`
   * resolves to later (a connection that arrived too late).
   */
  #interruptible<T>(work: Promise<T>, abandon: (value: T) => void): Promise<T> {
    if (this.#signal === undefined || this.#signal.aborted) return work;
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const onAbort = (): void => {
        settled = true;
        reject(this.#interrupted());
        work.then(abandon, () => {});
      };
      this.#waiting.add(onAbort);
      work.then(
        (value) => {
          this.#waiting.delete(onAbort);
          if (!settled) resolve(value);
        },
        (error) => {
          this.#waiting.delete(onAbort);
          if (!settled) reject(error);
        },
      );
    });
  }

  #interrupted(): UwfError {
    return new UwfError(
      "INTERRUPTED",
      `interrupted while waiting for the store at ${this.location}`,
    );
  }
}

/** A connection error that ends the retries, saying how many attempts were made. */
function afterAttempts(error: Error, attempts: number): Error {
  if (attempts < 2 || !isUwfError(error)) return error;
  return new UwfError(error.code, `${error.message} (gave up after ${attempts} attempts)`, {
    hint: error.hint,
    cause: error.cause,
    details: { ...error.details, attempts },
  });
}

/** `work`, or a timeout error after `ms`; `abandon` gets what `work` resolves to too late. */
function withDeadline<T>(work: Promise<T>, ms: number, abandon: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      reject(new Error(`no answer within ${ms} ms`));
    }, ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        if (late) abandon(value);
        else resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        if (!late) reject(error);
      },
    );
  });
}

function clientSql(
  client: PoolClient,
  location: string,
  timeouts: StoreTimeouts,
  queryTimeoutMs: number,
): Sql {
  const run = async (text: string, params?: readonly unknown[]) => {
    try {
      return await client.query({
        text,
        values: params as unknown[] | undefined,
        query_timeout: queryTimeoutMs,
      } as QueryConfig);
    } catch (error) {
      throw storeError(location, error, timeouts);
    }
  };
  return {
    async query<R extends QueryResultRow>(text: string, params?: readonly unknown[]) {
      return (await run(text, params)).rows as R[];
    },
    async execute(text: string, params?: readonly unknown[]) {
      return (await run(text, params)).rowCount ?? 0;
    },
  };
}

/** SQLSTATE classes that mean "the store cannot be used", not "this statement is wrong". */
const UNAVAILABLE_CLASSES = ["08", "28", "3D", "53", "57P"];
/** A statement ended by `statement_timeout`, and one that waited longer than `lock_timeout`. */
const STATEMENT_TIMEOUT = "57014";
const LOCK_TIMEOUT = "55P03";

/** The SQLSTATE of a server error, or null for a driver or socket error. */
export function sqlState(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}

/**
 * Word a driver error. Anything that is not a statement's own failure (a refused connection, a
 * dropped socket, bad credentials, a missing database, a server shutting down, no rights, a
 * server too slow to answer within the timeouts) means the store cannot be used:
 * STORE_UNAVAILABLE, naming the masked URL.
 */
export function storeError(
  location: string,
  error: unknown,
  timeouts: StoreTimeouts = DEFAULT_TIMEOUTS,
): Error {
  if (isUwfError(error)) return error;
  const state = sqlState(error);
  if (state === "42501") {
    return new UwfError("STORE_UNAVAILABLE", `${location}: ${errorMessage(error)}`, {
      hint: "the database user lacks a right uwf needs (it creates and writes its uwf_* tables): grant it, or use a database that user owns",
      cause: error,
      details: { store: location, sqlState: state },
    });
  }
  if (state === STATEMENT_TIMEOUT || state === LOCK_TIMEOUT) {
    const [what, key, ms] =
      state === LOCK_TIMEOUT
        ? ["waited for a lock", "lockTimeoutSeconds", timeouts.lockTimeoutMs]
        : ["ran", "statementTimeoutSeconds", timeouts.statementTimeoutMs];
    return new UwfError(
      "STORE_UNAVAILABLE",
      `the store at ${location} ${what} longer than ${seconds(ms)}: ${errorMessage(error)}`,
      {
        hint: `check the server's load and who holds locks (pg_stat_activity, pg_locks), then try again; \`postgres.${key}\` in config.yaml sets the limit`,
        cause: error,
        details: { store: location, sqlState: state },
      },
    );
  }
  if (state === null || UNAVAILABLE_CLASSES.some((prefix) => state.startsWith(prefix))) {
    return unavailable(location, error, timeouts);
  }
  return new UwfError("IO", `${location}: ${errorMessage(error)} (SQLSTATE ${state})`, {
    hint: "the PostgreSQL store refused a statement; check the server log, then try again",
    cause: error,
    details: { store: location, sqlState: state },
  });
}

function unavailable(location: string, error: unknown, timeouts: StoreTimeouts): UwfError {
  const reason =
    silence(error, timeouts) ??
    (errorMessage(error) || String((error as { code?: unknown })?.code ?? "unknown error"));
  return new UwfError("STORE_UNAVAILABLE", `cannot use the store at ${location}: ${reason}`, {
    hint: "check that the PostgreSQL server is running, answering (not stopped or overloaded) and reachable from this machine, and the `store:` URL in config.yaml (or UWF_STORE); `postgres:` in config.yaml sets how long uwf waits",
    cause: error,
    details: { store: location },
  });
}

/** The driver's words for a server that did not answer in time, said plainly. */
function silence(error: unknown, timeouts: StoreTimeouts): string | null {
  const message = errorMessage(error);
  if (message === "Query read timeout") {
    return `the server did not answer a statement within ${seconds(timeouts.statementTimeoutMs + timeouts.connectTimeoutMs)}`;
  }
  if (/timeout expired|connection timeout|timeout exceeded when trying to connect/i.test(message)) {
    return `the server did not accept a connection within ${seconds(timeouts.connectTimeoutMs)}`;
  }
  return null;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}
