import { hostname } from "node:os";
import type { BackendParts, StoreTimeouts } from "@united-workforce/store";
import { DEFAULT_LEASE_TTL_MS } from "@united-workforce/store/backend";
import { createPostgresCasBackend } from "./cas-backend.js";
import { connect, type Database } from "./connection.js";
import { createPostgresLeases } from "./leases.js";
import { migrate } from "./migrate.js";
import { createPostgresRegistry } from "./registry-backend.js";
import { createPostgresThreads } from "./threads.js";

export interface PostgresPartsOptions {
  /** This machine's name in lease holders (default: the host name). */
  host?: string;
  /** How long a lease lives without renewal (default 30 s). */
  leaseTtlMs?: number;
  /** How long the server is waited on (defaults: DEFAULT_TIMEOUTS). */
  timeouts?: Partial<StoreTimeouts>;
  /** Aborting it ends every wait on the server at once (INTERRUPTED). */
  signal?: AbortSignal;
}

/** What the PostgreSQL backend gives the shared store layer: the primitives, and the pool's end. */
export interface PostgresParts extends BackendParts {
  readonly kind: "postgres";
}

/**
 * Connect to the store at `url` and bring its tables up to date; `openStore` puts the shared
 * CAS, registry and gc rules on top. Fails with STORE_UNAVAILABLE (the server cannot be reached
 * or refuses us, or does not answer in time) or STORE_VERSION (its schema is newer than this uwf, or a migration failed),
 * naming the URL without its password.
 */
export async function openPostgresParts(
  url: string,
  options: PostgresPartsOptions = {},
): Promise<PostgresParts> {
  const db = await connect(url, { timeouts: options.timeouts, signal: options.signal });
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  const host = options.host ?? hostname();
  const leases = createPostgresLeases(db, {
    host,
    ttlMs: options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS,
  });
  return {
    kind: "postgres",
    location: db.location,
    host,
    cas: createPostgresCasBackend(db, { clockOffsetMs: once(() => clockOffsetMs(db)) }),
    threads: createPostgresThreads(db, () => leases.live()),
    registry: createPostgresRegistry(db),
    leases,
    close: () => db.close(),
  };
}

/**
 * This machine's clock minus the database's, so times the database stamped (a node's
 * `written_at`) compare with `Date.now()`. Half the round trip is the uncertainty.
 */
async function clockOffsetMs(db: Database): Promise<number> {
  const before = Date.now();
  const [row] = await db.query<{ now: Date }>("select clock_timestamp() as now");
  const after = Date.now();
  return row === undefined ? 0 : Math.round((before + after) / 2 - row.now.getTime());
}

function once<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    value ??= make().catch((error) => {
      value = undefined;
      throw error;
    });
    return value;
  };
}
