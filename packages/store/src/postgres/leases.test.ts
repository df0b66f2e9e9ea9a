import { spawnSync } from "node:child_process";
import { isUwfError, type UwfError } from "@united-workforce/util";
import { describe, expect, it, vi } from "vitest";
import type { Lease } from "../api.js";
import { processIdentity } from "../locks/process-identity.js";
import { threadIdAt } from "./__testing__/pointers.js";
import { usePostgres } from "./__testing__/server.js";
import { connect, type Database } from "./connection.js";
import { createPostgresLeases, type PostgresLeaseOptions } from "./leases.js";

const pg = usePostgres();

const HOST = "runner-1";
const me = processIdentity(process.pid);
/** A process that has exited (spawnSync waits for it and reaps it). */
const deadPid = spawnSync("true").pid!;

function leases(db: Database, options: Partial<PostgresLeaseOptions> = {}) {
  return createPostgresLeases(db, { host: HOST, ttlMs: 60_000, ...options });
}

async function caught(promise: Promise<unknown>): Promise<UwfError> {
  try {
    await promise;
  } catch (error) {
    if (isUwfError(error)) return error;
    throw error;
  }
  throw new Error("expected a UwfError");
}

const thread = () => threadIdAt(Date.now());

describe("PostgreSQL exec leases", () => {
  it("acquire takes a free lease; a second acquire is busy and names the holder", async () => {
    const { db } = await pg.migrated();
    const store = leases(db);
    const id = thread();
    const { lease, replaced } = await store.acquire(id, { command: "thread exec" });
    try {
      expect(replaced).toBeNull();
      const info = lease.info();
      expect(info).toMatchObject({
        thread: id,
        holder: { host: HOST, pid: process.pid, startTime: me.startTime },
        command: "thread exec",
        child: null,
      });
      expect(Date.parse(info.expiresAt)).toBeGreaterThan(Date.parse(info.acquiredAt));
      expect(await store.read(id)).toEqual({ info, alive: true });
      expect(await store.live()).toEqual(new Set([id]));
      const busy = await caught(store.acquire(id, { command: "thread exec" }));
      expect(busy.code).toBe("THREAD_BUSY");
      expect(busy.message).toBe(
        `thread ${id} is busy: pid ${process.pid} on ${HOST} holds its lease (thread exec, since ${info.acquiredAt})`,
      );
      expect(busy.hint).toContain(`uwf thread join ${id}`);
    } finally {
      await lease.release();
    }
    expect(await store.read(id)).toBeNull();
    expect(await store.live()).toEqual(new Set());
  });

  it("takes over the lease of a holder on this machine whose process is gone", async () => {
    const { db } = await pg.migrated();
    const id = thread();
    const dead = leases(db, { self: () => ({ pid: deadPid, startTime: null }) });
    const old = await dead.acquire(id, { command: "crashed exec" });
    await old.lease.setChild({ pid: deadPid, pgid: deadPid, startTime: null });
    const store = leases(db);
    expect(await store.read(id)).toMatchObject({ alive: false });
    expect(await store.live()).toEqual(new Set());
    const { lease, replaced } = await store.acquire(id, { command: "thread exec" });
    // The caller stops the agent the dead holder left: the store only hands it over.
    expect(replaced).toEqual({
      ...old.lease.info(),
      child: { pid: deadPid, pgid: deadPid, startTime: null },
    });
    expect(lease.info().holder.pid).toBe(process.pid);
    await lease.release();
    await old.lease.release();
  });

  it("a reused pid does not make a dead holder look alive (start time differs)", async () => {
    const { db } = await pg.migrated();
    const id = thread();
    const reused = leases(db, { self: () => ({ pid: process.pid, startTime: "1" }) });
    await reused.acquire(id, { command: "old exec" });
    const { replaced, lease } = await leases(db).acquire(id, { command: "thread exec" });
    expect(replaced?.holder).toEqual({ host: HOST, pid: process.pid, startTime: "1" });
    await lease.release();
  });

  it("a holder on another machine is judged by expiry, not by its pid", async () => {
    const { db } = await pg.migrated();
    const id = thread();
    const elsewhere = leases(db, {
      host: "runner-2",
      self: () => ({ pid: deadPid, startTime: null }),
    });
    const theirs = await elsewhere.acquire(id, { command: "thread exec" });
    const store = leases(db);
    expect(await store.read(id)).toMatchObject({ alive: true });
    expect((await caught(store.acquire(id, { command: "thread exec" }))).message).toContain(
      `pid ${deadPid} on runner-2 holds its lease`,
    );
    expect(await store.clearStale(id)).toBeNull();
    await db.execute("update uwf_leases set expires_at = now() - interval '1 second'");
    expect(await store.read(id)).toMatchObject({ alive: false });
    const { lease, replaced } = await store.acquire(id, { command: "thread exec" });
    expect(replaced?.holder.host).toBe("runner-2");
    expect(replaced?.token).toBe(theirs.lease.token);
    // The old holder finds out at its next renewal.
    const lost = await caught(theirs.lease.renew());
    expect(lost.code).toBe("LEASE_LOST");
    expect(lost.message).toBe(
      `the exec lease of thread ${id} is no longer ours: another process took it over or removed it`,
    );
    expect((await caught(theirs.lease.setChild(null))).code).toBe("LEASE_LOST");
    await theirs.lease.release();
    expect((await store.read(id))?.info.token).toBe(lease.token);
    await lease.release();
  });

  it("renew pushes the expiry forward by the database clock", async () => {
    const { db } = await pg.migrated();
    const id = thread();
    const { lease } = await leases(db).acquire(id, { command: "thread exec" });
    await db.execute("update uwf_leases set expires_at = '2000-01-01T00:00:00Z'");
    await lease.renew();
    const [row] = await db.query<{ later: boolean }>(
      "select expires_at > now() + interval '50 seconds' as later from uwf_leases",
    );
    expect(row?.later).toBe(true);
    expect(Date.parse(lease.info().expiresAt)).toBeGreaterThan(Date.parse("2020-01-01"));
    await lease.release();
  });

  it("a held lease renews itself in the background until released", async () => {
    const { db } = await pg.migrated();
    const id = thread();
    const { lease } = await leases(db, { ttlMs: 300 }).acquire(id, { command: "thread exec" });
    await db.execute("update uwf_leases set expires_at = '2000-01-01T00:00:00Z'");
    await vi.waitFor(
      async () => {
        const [row] = await db.query<{ renewed: boolean }>(
          "select expires_at > now() as renewed from uwf_leases",
        );
        expect(row?.renewed).toBe(true);
      },
      { timeout: 10_000, interval: 20 },
    );
    await lease.release();
    expect(await db.query("select 1 from uwf_leases")).toEqual([]);
  });

  it("records the agent's process group, and hands the lease to a worker that adopts it", async () => {
    const { db } = await pg.migrated();
    const id = thread();
    const store = leases(db);
    const { lease } = await store.acquire(id, { command: "thread exec --background" });
    await lease.setChild({ pid: 4242, pgid: 4242, startTime: "99" });
    expect((await store.read(id))?.info.child).toEqual({ pid: 4242, pgid: 4242, startTime: "99" });
    await lease.setChild(null);
    expect((await store.read(id))?.info.child).toBeNull();

    const worker = { host: HOST, pid: process.pid, startTime: me.startTime };
    await lease.transfer(worker);
    // The parent's handle is done: releasing it must not drop the worker's lease.
    await lease.release();
    expect((await caught(lease.renew())).code).toBe("LEASE_LOST");
    const adopted: Lease = await store.adopt(id, lease.token);
    expect(adopted.info()).toMatchObject({ token: lease.token, holder: worker });
    expect((await store.read(id))?.alive).toBe(true);

    const wrong = await caught(store.adopt(id, "another-token"));
    expect(wrong.code).toBe("THREAD_BUSY");
    await adopted.release();
    const gone = await caught(store.adopt(id, lease.token));
    expect(gone.code).toBe("LEASE_LOST");
    expect(gone.message).toBe(
      `the exec lease of thread ${id} is no longer ours: the lease this worker was started with is gone`,
    );
  });

  it("clearStale removes only a lease whose holder is gone", async () => {
    const { db } = await pg.migrated();
    const store = leases(db);
    const live = thread();
    const stale = thread();
    const held = await store.acquire(live, { command: "thread exec" });
    await leases(db, { self: () => ({ pid: deadPid, startTime: null }) }).acquire(stale, {
      command: "crashed exec",
    });
    expect(await store.clearStale(live)).toBeNull();
    expect(await store.clearStale(thread())).toBeNull();
    expect((await store.clearStale(stale))?.holder.pid).toBe(deadPid);
    expect(await store.read(stale)).toBeNull();
    expect(await store.live()).toEqual(new Set([live]));
    await held.lease.release();
  });

  it("of many processes acquiring one thread at once, exactly one gets it", async () => {
    const { url } = await pg.migrated();
    const dbs = await Promise.all(Array.from({ length: 8 }, () => connect(url)));
    try {
      const id = thread();
      const outcomes = await Promise.allSettled(
        dbs.map((db) => leases(db).acquire(id, { command: "thread exec" })),
      );
      const won = outcomes.filter((o) => o.status === "fulfilled");
      expect(won).toHaveLength(1);
      for (const o of outcomes) {
        if (o.status === "rejected") expect((o.reason as UwfError).code).toBe("THREAD_BUSY");
      }
      await (won[0] as PromiseFulfilledResult<{ lease: Lease }>).value.lease.release();
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
    }
  });

  it("of many processes taking over one stale lease at once, exactly one replaces it", async () => {
    const { url, db } = await pg.migrated();
    const id = thread();
    await leases(db, { host: "runner-2" }).acquire(id, { command: "thread exec" });
    await db.execute("update uwf_leases set expires_at = now() - interval '1 second'");
    const dbs = await Promise.all(Array.from({ length: 8 }, () => connect(url)));
    try {
      const outcomes = await Promise.allSettled(
        dbs.map((d) => leases(d).acquire(id, { command: "thread exec" })),
      );
      const won = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
      expect(won).toHaveLength(1);
      expect(won[0]?.replaced?.holder.host).toBe("runner-2");
      await won[0]?.lease.release();
    } finally {
      await Promise.all(dbs.map((d) => d.close()));
    }
  });
});
