import { freePort } from "@united-workforce/test-utils";
import { hashBytes } from "@united-workforce/util";
import { describe, expect, it, vi } from "vitest";
import { caught, pointer } from "../../store/src/__testing__/store-fixtures.js";
import { usePostgres } from "./__testing__/server.js";
import { connect } from "./connection.js";
import { SCHEMA_VERSION } from "./migrations.js";
import { openPostgresParts } from "./open.js";

const pg = usePostgres();

describe("openPostgresParts", () => {
  it("migrates a new database and gives parts that share one connection pool", async () => {
    const url = (await pg.database()).replace("uwf@", "uwf:s3cret@");
    const parts = await openPostgresParts(url, { host: "runner-1", leaseTtlMs: 5_000 });
    try {
      expect(parts.kind).toBe("postgres");
      expect(parts.location).toBe(url.replace("s3cret", "****"));
      const bytes = new TextEncoder().encode('{"payload":"x","type":"schema"}');
      const hash = hashBytes(bytes);
      expect(await parts.cas.write([{ hash, bytes, type: "schema", refs: [] }])).toEqual(
        new Set([hash]),
      );
      expect(parts.cas.locate(hash)).toBe(`${parts.location} uwf_cas_nodes hash=${hash}`);
      const p = await parts.threads.create(pointer());
      const { lease } = await parts.leases.acquire(p.thread, { command: "thread exec" });
      expect(lease.info().holder.host).toBe("runner-1");
      const page = await parts.threads.list({ statuses: ["running"] });
      expect(page.items.map((item) => item.id)).toEqual([p.thread]);
      await lease.release();
      expect(await parts.registry.get("flow")).toBeNull();
    } finally {
      await parts.close();
    }
  });

  it("refuses a store a newer uwf has migrated, and leaves no connection open", async () => {
    const url = await pg.database();
    await (await openPostgresParts(url)).close();
    const db = await connect(url);
    await db.execute("insert into uwf_schema_migrations (version, name) values ($1, 'future')", [
      SCHEMA_VERSION + 1,
    ]);
    const error = await caught(() => openPostgresParts(url));
    expect(error.code).toBe("STORE_VERSION");
    expect(error.message).toContain(`has store schema version ${SCHEMA_VERSION + 1}`);
    // The failed open closed its pool (a backend leaves pg_stat_activity once it has exited).
    await vi.waitFor(async () => {
      const [row] = await db.query<{ others: number }>(
        "select count(*)::int as others from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
      );
      expect(row?.others).toBe(0);
    });
    await db.close();
  });
});

describe("opening a store that cannot be used", () => {
  it("names the server without its password when nothing listens", async () => {
    const port = await freePort();
    const error = await caught(() =>
      // One attempt: a refused connection is otherwise retried (connect-retry.test.ts).
      openPostgresParts(`postgres://uwf:s3cret@127.0.0.1:${port}/uwf`, {
        timeouts: { connectAttempts: 1 },
      }),
    );
    expect(error.code).toBe("STORE_UNAVAILABLE");
    expect(error.message).toContain(
      `cannot use the store at postgres://uwf:****@127.0.0.1:${port}/uwf:`,
    );
    expect(error.message).not.toContain("s3cret");
    expect(error.hint).toContain("`store:` URL in config.yaml");
  });

  it("reports a database that does not exist", async () => {
    const url = pg.server().url.replace(/\/postgres$/, "/no_such_db");
    const error = await caught(() => openPostgresParts(url));
    expect(error.code).toBe("STORE_UNAVAILABLE");
    expect(error.message).toContain('database "no_such_db" does not exist');
  });

  it("reports a URL that cannot be parsed without printing it whole", async () => {
    const error = await caught(() =>
      openPostgresParts("postgres://uwf:s3cret@127.0.0.1:notaport/db"),
    );
    expect(error.code).toBe("STORE_UNAVAILABLE");
    expect(error.message).not.toContain("s3cret");
  });
});
