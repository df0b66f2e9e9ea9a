import { hostname } from "node:os";
import type { CasBackend, LeaseStore, RegistryBackend, ThreadsStore } from "../api.js";
import { createPostgresCasBackend } from "./cas-backend.js";
import { connect, type Database } from "./connection.js";
import { createPostgresLeases } from "./leases.js";
import { migrate } from "./migrations.js";
import { createPostgresRegistry } from "./registry-backend.js";
import { createPostgresThreads } from "./threads.js";

export interface PostgresPartsOptions {
  /** This machine's name in lease holders (default: the host name). */
  host?: string;
  /** How long a lease lives without renewal (default 30 s). */
  leaseTtlMs?: number;
}

/** What the PostgreSQL backend gives `openStore`: the primitives, and the connection's end. */
export interface PostgresParts {
  readonly kind: "postgres";
  /** The URL without its password. */
  readonly location: string;
  readonly cas: CasBackend;
  readonly threads: ThreadsStore;
  readonly registry: RegistryBackend;
  readonly leases: LeaseStore;
  close(): Promise<void>;
}

export const DEFAULT_LEASE_TTL_MS = 30_000;

/**
 * Connect to the store at `url` and bring its tables up to date. Fails with STORE_UNAVAILABLE
 * (the server cannot be reached or refuses us) or STORE_VERSION (its schema is newer than this
 * uwf, or a migration failed), naming the URL without its password.
 */
export async function openPostgresParts(
  url: string,
  options: PostgresPartsOptions = {},
): Promise<PostgresParts> {
  const db = await connect(url);
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  const leases = createPostgresLeases(db, {
    host: options.host ?? hostname(),
    ttlMs: options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS,
  });
  return {
    kind: "postgres",
    location: db.location,
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
