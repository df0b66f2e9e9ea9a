import { describe, expect, it } from "vitest";
import { caught } from "../../store/src/__testing__/store-fixtures.js";
import { usePostgres } from "./__testing__/server.js";
import { connect } from "./connection.js";
import { migrate } from "./migrate.js";
import { MIGRATIONS, SCHEMA_VERSION } from "./migrations.js";

const pg = usePostgres();

describe("migrations", () => {
  it("create the tables once; a second run applies nothing", async () => {
    const db = await connect(await pg.database());
    try {
      expect(await migrate(db)).toEqual({ applied: MIGRATIONS.map((m) => m.version) });
      expect(await migrate(db)).toEqual({ applied: [] });
      const tables = await db.query<{ name: string }>(
        "select tablename as name from pg_tables where tablename like 'uwf_%' order by 1",
      );
      expect(tables.map((t) => t.name)).toEqual([
        "uwf_cas_nodes",
        "uwf_leases",
        "uwf_registry",
        "uwf_schema_migrations",
        "uwf_threads",
      ]);
    } finally {
      await db.close();
    }
  });

  it("are safe when many processes open a new store at once: each migration runs once", async () => {
    const url = await pg.database();
    const dbs = await Promise.all(Array.from({ length: 8 }, () => connect(url)));
    try {
      const results = await Promise.all(dbs.map((db) => migrate(db)));
      const applied = results.flatMap((r) => r.applied);
      expect(applied).toEqual(MIGRATIONS.map((m) => m.version));
      const rows = await dbs[0]!.query<{ version: number }>(
        "select version from uwf_schema_migrations",
      );
      expect(rows).toHaveLength(MIGRATIONS.length);
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
    }
  });

  it("refuse a store whose schema is newer than this uwf", async () => {
    const { url, db } = await pg.migrated();
    await db.execute("insert into uwf_schema_migrations (version, name) values ($1, 'future')", [
      SCHEMA_VERSION + 1,
    ]);
    const error = await caught(() => migrate(db));
    expect(error.code).toBe("STORE_VERSION");
    expect(error.message).toBe(
      `${url} has store schema version ${SCHEMA_VERSION + 1}, newer than this uwf understands (${SCHEMA_VERSION})`,
    );
    expect(error.hint).toContain("upgrade uwf");
  });

  it("keep nothing of a migration that fails, and say which one", async () => {
    const db = await connect(await pg.database());
    try {
      const broken = [
        ...MIGRATIONS,
        {
          version: SCHEMA_VERSION + 1,
          name: "broken",
          sql: "create table uwf_half (x int); select nonsense();",
        },
      ];
      const error = await caught(() => migrate(db, broken));
      expect(error.code).toBe("STORE_VERSION");
      expect(error.message).toMatch(
        new RegExp(
          `store migration ${SCHEMA_VERSION + 1} \\(broken\\) failed: function nonsense\\(\\) does not exist`,
        ),
      );
      const versions = await db.query<{ version: number }>(
        "select version from uwf_schema_migrations order by 1",
      );
      expect(versions.map((v) => v.version)).toEqual(MIGRATIONS.map((m) => m.version));
      const half = await db.query("select 1 from pg_tables where tablename = 'uwf_half'");
      expect(half).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it("give up waiting for a migration another process never finishes", async () => {
    const url = await pg.database();
    const stuck = await connect(url);
    const db = await connect(url);
    try {
      await stuck.withClient(async (sql) => {
        await sql.execute("select pg_advisory_lock(7570766001)");
        const error = await caught(() => migrate(db, MIGRATIONS, { lockWaitMs: 200 }));
        expect(error.code).toBe("STORE_UNAVAILABLE");
        expect(error.message).toBe(
          `${url}: another process has been migrating the store for over 0.2 s`,
        );
        await sql.execute("select pg_advisory_unlock(7570766001)");
      });
      expect(await migrate(db)).toEqual({ applied: MIGRATIONS.map((m) => m.version) });
    } finally {
      await Promise.all([stuck.close(), db.close()]);
    }
  });
});
