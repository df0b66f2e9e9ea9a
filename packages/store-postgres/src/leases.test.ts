import { describe, expect, it } from "vitest";
import { caught, deadPid, threadIdAt } from "../../store/src/__testing__/store-fixtures.js";
import { usePostgres } from "./__testing__/server.js";
import type { Database } from "./connection.js";
import { createPostgresLeases, type PostgresLeaseOptions } from "./leases.js";

/**
 * What only the PostgreSQL leases do: expiry is the database's clock. Everything a lease does
 * through the Store interface is in the conformance suite (conformance.postgres.test.ts).
 */

const pg = usePostgres();

function leases(db: Database, options: Partial<PostgresLeaseOptions> = {}) {
  return createPostgresLeases(db, { host: "runner-1", ttlMs: 60_000, ...options });
}

const thread = () => threadIdAt(Date.now());

describe("PostgreSQL exec leases", () => {
  it("judge a holder on another machine by the database clock, whatever its pid", async () => {
    const { db } = await pg.migrated();
    const id = thread();
    const elsewhere = leases(db, {
      host: "runner-2",
      self: () => ({ pid: deadPid(), startTime: null }),
    });
    const theirs = await elsewhere.acquire(id, { command: "thread exec" });
    const store = leases(db);
    // Its pid means nothing here: only its expiry does, and that is 60 s away.
    expect(await store.read(id)).toMatchObject({ alive: true });
    expect((await caught(() => store.acquire(id, { command: "thread exec" }))).code).toBe(
      "THREAD_BUSY",
    );
    // Expired by the server's clock (this machine's clock is never asked).
    await db.execute("update uwf_leases set expires_at = now() - interval '1 millisecond'");
    expect(await store.read(id)).toMatchObject({ alive: false });
    const { lease, replaced } = await store.acquire(id, { command: "thread exec" });
    expect(replaced?.token).toBe(theirs.lease.token);
    expect((await caught(() => theirs.lease.renew())).code).toBe("LEASE_LOST");
    await lease.release();
  });

  it("renew sets the expiry from the database clock", async () => {
    const { db } = await pg.migrated();
    const { lease } = await leases(db).acquire(thread(), { command: "thread exec" });
    await db.execute("update uwf_leases set expires_at = '2000-01-01T00:00:00Z'");
    await lease.renew();
    const [row] = await db.query<{ ahead: boolean }>(
      "select expires_at > now() + interval '50 seconds' as ahead from uwf_leases",
    );
    expect(row?.ahead).toBe(true);
    expect(Date.parse(lease.info().expiresAt)).toBeGreaterThan(Date.parse("2020-01-01"));
    await lease.release();
  });
});
