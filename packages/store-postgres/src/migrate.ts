import { errorMessage, UwfError } from "@united-workforce/util";
import { type Database, type Sql, sqlState } from "./connection.js";
import { MIGRATIONS, type Migration } from "./migrations.js";

/** Taken by every process that migrates, so two never apply the same migration. */
const MIGRATION_LOCK = 7_570_766_001;
const MIGRATION_LOCK_WAIT_MS = 60_000;

const CREATE_MIGRATIONS_TABLE = `
create table if not exists uwf_schema_migrations (
  version integer primary key,
  name text not null,
  applied_at timestamptz not null default now()
)`;

/**
 * Bring the database to this code's schema version. The usual case, an up-to-date database,
 * costs one query; otherwise the pending migrations run one transaction each, under an
 * advisory lock, re-checked once the lock is held. A database whose schema is newer than this
 * code is refused: this uwf would not know what the newer one writes.
 */
export async function migrate(
  db: Database,
  migrations: readonly Migration[] = MIGRATIONS,
  options: { lockWaitMs?: number } = {},
): Promise<{ applied: number[] }> {
  const lockWaitMs = options.lockWaitMs ?? MIGRATION_LOCK_WAIT_MS;
  const latest = Math.max(0, ...migrations.map((m) => m.version));
  const current = await appliedVersion(db);
  if (current !== null) {
    assertNotNewer(db.location, current, latest);
    if (current === latest) return { applied: [] };
  }
  return db.withClient(async (sql) => {
    await takeMigrationLock(sql, db.location, lockWaitMs);
    try {
      await sql.execute(CREATE_MIGRATIONS_TABLE);
      const done = new Set(
        (await sql.query<{ version: number }>("select version from uwf_schema_migrations")).map(
          (row) => row.version,
        ),
      );
      assertNotNewer(db.location, Math.max(0, ...done), latest);
      const applied: number[] = [];
      for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
        if (done.has(migration.version)) continue;
        await apply(sql, db.location, migration);
        applied.push(migration.version);
      }
      return { applied };
    } finally {
      await sql.execute("select pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
    }
  });
}

/**
 * Wait for the migration lock, but not forever: a process that hangs while migrating must not
 * hang every uwf that opens the store after it.
 */
async function takeMigrationLock(sql: Sql, location: string, waitMs: number): Promise<void> {
  await sql.execute(`set lock_timeout = ${Math.max(1, Math.round(waitMs))}`);
  try {
    await sql.execute("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
  } catch (error) {
    if (sqlState((error as Error).cause) !== "55P03") throw error;
    throw new UwfError(
      "STORE_UNAVAILABLE",
      `${location}: another process has been migrating the store for over ${waitMs / 1000} s`,
      {
        hint: "see which session holds the lock (pg_locks, locktype advisory) and whether it is stuck, then try again",
        cause: error,
        details: { store: location },
      },
    );
  } finally {
    await sql.execute("reset lock_timeout").catch(() => {});
  }
}

/** The newest applied version; null when the migrations table does not exist yet. */
async function appliedVersion(db: Database): Promise<number | null> {
  try {
    const [row] = await db.query<{ version: number | null }>(
      "select max(version) as version from uwf_schema_migrations",
    );
    return row?.version ?? 0;
  } catch (error) {
    if (sqlState((error as Error).cause) === "42P01") return null;
    throw error;
  }
}

async function apply(sql: Sql, location: string, migration: Migration): Promise<void> {
  await sql.execute("begin");
  try {
    await sql.execute(migration.sql);
    await sql.execute("insert into uwf_schema_migrations (version, name) values ($1, $2)", [
      migration.version,
      migration.name,
    ]);
    await sql.execute("commit");
  } catch (error) {
    await sql.execute("rollback").catch(() => {});
    if ((error as { code?: string }).code === "STORE_UNAVAILABLE") throw error;
    throw new UwfError(
      "STORE_VERSION",
      `${location}: store migration ${migration.version} (${migration.name}) failed: ${errorMessage((error as Error).cause ?? error)}`,
      {
        hint: "nothing of that migration was kept; fix the cause (often the database user's rights) and run uwf again",
        cause: error,
        details: { store: location, migration: migration.version },
      },
    );
  }
}

function assertNotNewer(location: string, current: number, latest: number): void {
  if (current <= latest) return;
  throw new UwfError(
    "STORE_VERSION",
    `${location} has store schema version ${current}, newer than this uwf understands (${latest})`,
    {
      hint: "upgrade uwf on this machine: every machine sharing a store needs a uwf at least as new as the newest one that used it",
      details: { store: location, schemaVersion: current, supported: latest },
    },
  );
}
