import { maskUrl } from "@united-workforce/store/backend";
import { errorMessage, isUwfError, UwfError } from "@united-workforce/util";
import pg, { type Pool, type PoolClient, type QueryResultRow } from "pg";

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
 * more than one connection; the second exists for a lease renewal that fires during a
 * transaction. Idle connections never keep a finished process alive (`allowExitOnIdle`).
 */
const POOL_MAX = 3;
const CONNECT_TIMEOUT_MS = 10_000;

/** Open a pool for `url`. */
export async function connect(url: string): Promise<Database> {
  const location = maskUrl(url);
  let pool: Pool;
  try {
    pool = new pg.Pool({
      connectionString: url,
      max: POOL_MAX,
      idleTimeoutMillis: 10_000,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      allowExitOnIdle: true,
      // A server that vanished without closing the socket is noticed instead of waited on.
      keepAlive: true,
      application_name: "uwf",
    });
  } catch (error) {
    throw unavailable(location, error);
  }
  // A connection the server drops while idle emits here; the next query simply reconnects.
  pool.on("error", () => {});
  return new PoolDatabase(pool, location);
}

class PoolDatabase implements Database {
  readonly location: string;
  readonly #pool: Pool;
  #closed: Promise<void> | null = null;

  constructor(pool: Pool, location: string) {
    this.#pool = pool;
    this.location = location;
  }

  async query<R extends QueryResultRow>(text: string, params?: readonly unknown[]): Promise<R[]> {
    try {
      return (await this.#pool.query<R>(text, params as unknown[])).rows;
    } catch (error) {
      throw storeError(this.location, error);
    }
  }

  async execute(text: string, params?: readonly unknown[]): Promise<number> {
    try {
      return (await this.#pool.query(text, params as unknown[])).rowCount ?? 0;
    } catch (error) {
      throw storeError(this.location, error);
    }
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
    let client: PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw storeError(this.location, error);
    }
    let broken: Error | undefined;
    try {
      return await work(clientSql(client, this.location));
    } catch (error) {
      // A client whose connection failed must not go back to the pool.
      if (isUwfError(error) && error.code === "STORE_UNAVAILABLE") broken = error;
      throw error;
    } finally {
      client.release(broken);
    }
  }

  close(): Promise<void> {
    this.#closed ??= this.#pool.end().catch(() => {});
    return this.#closed;
  }
}

function clientSql(client: PoolClient, location: string): Sql {
  return {
    async query<R extends QueryResultRow>(text: string, params?: readonly unknown[]) {
      try {
        return (await client.query<R>(text, params as unknown[])).rows;
      } catch (error) {
        throw storeError(location, error);
      }
    },
    async execute(text: string, params?: readonly unknown[]) {
      try {
        return (await client.query(text, params as unknown[])).rowCount ?? 0;
      } catch (error) {
        throw storeError(location, error);
      }
    },
  };
}

/** SQLSTATE classes that mean "the store cannot be used", not "this statement is wrong". */
const UNAVAILABLE_CLASSES = ["08", "28", "3D", "53", "57P"];

/** The SQLSTATE of a server error, or null for a driver or socket error. */
export function sqlState(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}

/**
 * Word a driver error. Anything that is not a statement's own failure (a refused connection, a
 * dropped socket, bad credentials, a missing database, a server shutting down, no rights) means
 * the store cannot be used: STORE_UNAVAILABLE, naming the masked URL.
 */
export function storeError(location: string, error: unknown): Error {
  if (isUwfError(error)) return error;
  const state = sqlState(error);
  if (state === "42501") {
    return new UwfError("STORE_UNAVAILABLE", `${location}: ${errorMessage(error)}`, {
      hint: "the database user lacks a right uwf needs (it creates and writes its uwf_* tables): grant it, or use a database that user owns",
      cause: error,
      details: { store: location, sqlState: state },
    });
  }
  if (state === null || UNAVAILABLE_CLASSES.some((prefix) => state.startsWith(prefix))) {
    return unavailable(location, error);
  }
  return new UwfError("IO", `${location}: ${errorMessage(error)} (SQLSTATE ${state})`, {
    hint: "the PostgreSQL store refused a statement; check the server log, then try again",
    cause: error,
    details: { store: location, sqlState: state },
  });
}

function unavailable(location: string, error: unknown): UwfError {
  const reason =
    errorMessage(error) || String((error as { code?: unknown })?.code ?? "unknown error");
  return new UwfError("STORE_UNAVAILABLE", `cannot use the store at ${location}: ${reason}`, {
    hint: "check that the PostgreSQL server is running and reachable from this machine, and the `store:` URL in config.yaml (or UWF_STORE)",
    cause: error,
    details: { store: location },
  });
}
