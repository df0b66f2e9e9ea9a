import { newUlid } from "@united-workforce/util";
import { describe, expect, it } from "vitest";
import type { HolderIdentity, Lease } from "../api.js";
import type { ConformanceContext } from "./conformance-context.js";
import { caught, deadPid, waitFor } from "./store-fixtures.js";

/** A lease TTL short enough to wait out, long enough to outlast a few calls on a busy machine. */
const SHORT_TTL_MS = 500;
const CONTENDERS = 10;

export function describeLeaseConformance(context: ConformanceContext): void {
  // Long by design: the lease cases of the suite, one `it` each, in one describe block.
  /** The lease's holder, moved to a process of this host that has exited. */
  const handToDeadProcess = async (lease: Lease): Promise<HolderIdentity> => {
    const dead = { host: lease.info().holder.host, pid: deadPid(), startTime: "12345" };
    await lease.transfer(dead);
    return dead;
  };

  describe("leases", () => {
    it("takes a free lease; a second acquire fails at once naming the holder", async () => {
      const { leases } = context.store;
      const thread = newUlid();
      const { lease, replaced } = await leases.acquire(thread, { command: "thread exec" });
      expect(replaced).toBeNull();
      const info = lease.info();
      expect(info).toMatchObject({
        thread,
        token: lease.token,
        holder: { pid: process.pid },
        command: "thread exec",
        child: null,
      });
      expect(lease.thread).toBe(thread);
      expect(Date.parse(info.expiresAt)).toBeGreaterThan(Date.parse(info.acquiredAt));
      expect(await leases.read(thread)).toEqual({ info, alive: true });
      expect(await leases.live()).toEqual(new Set([thread]));

      const error = await caught(() => leases.acquire(thread, { command: "thread exec" }));
      expect(error.code).toBe("THREAD_BUSY");
      expect(error.message).toContain(`pid ${process.pid} on ${info.holder.host}`);
      expect(error.details).toMatchObject({
        pid: process.pid,
        host: info.holder.host,
        command: "thread exec",
      });
      expect(error.hint).toBe(
        `wait for it with \`uwf thread join ${thread}\` or stop it with \`uwf thread stop ${thread}\``,
      );
      expect((await leases.read(thread))?.info.token).toBe(lease.token);
    });

    it("frees the lease on release; releasing twice is harmless", async () => {
      const { leases } = context.store;
      const thread = newUlid();
      const { lease } = await leases.acquire(thread, { command: "thread exec" });
      await lease.release();
      await lease.release();
      expect(await leases.read(thread)).toBeNull();
      expect(await leases.live()).toEqual(new Set());
      const again = await leases.acquire(thread, { command: "thread exec" });
      expect(again.replaced).toBeNull();
      expect(again.lease.token).not.toBe(lease.token);
    });

    it("keeps leases of different threads apart", async () => {
      const { leases } = context.store;
      const [a, b] = [newUlid(), newUlid()];
      const first = await leases.acquire(a, { command: "thread exec" });
      const second = await leases.acquire(b, { command: "thread exec" });
      expect(await leases.live()).toEqual(new Set([a, b]));
      await first.lease.release();
      expect(await leases.live()).toEqual(new Set([b]));
      expect((await leases.read(b))?.info.token).toBe(second.lease.token);
    });

    it(`gives one lease to exactly one of ${CONTENDERS} concurrent acquires`, async () => {
      const { leases } = context.store;
      const thread = newUlid();
      const results = await Promise.allSettled(
        Array.from({ length: CONTENDERS }, () => leases.acquire(thread, { command: "race" })),
      );
      const won = results.filter((result) => result.status === "fulfilled");
      expect(won).toHaveLength(1);
      const codes = results.flatMap((result) =>
        result.status === "rejected" ? [(result.reason as { code?: string }).code] : [],
      );
      expect(codes).toEqual(Array(CONTENDERS - 1).fill("THREAD_BUSY"));
    });

    it("refuses a malformed thread id", async () => {
      const { leases } = context.store;
      expect((await caught(() => leases.acquire("../x", { command: "c" }))).code).toBe("USAGE");
      expect((await caught(() => leases.read("../x"))).code).toBe("USAGE");
    });

    it("takes over the lease of a holder on this host whose process exited", async () => {
      const { leases } = context.store;
      const thread = newUlid();
      const { lease: old } = await leases.acquire(thread, { command: "thread exec" });
      const dead = await handToDeadProcess(old);
      expect(await leases.read(thread)).toMatchObject({ info: { holder: dead }, alive: false });
      expect(await leases.live()).toEqual(new Set());

      const { lease, replaced } = await leases.acquire(thread, { command: "thread exec" });
      expect(replaced).toMatchObject({ token: old.token, holder: dead, command: "thread exec" });
      expect(await leases.read(thread)).toEqual({ info: lease.info(), alive: true });
    });

    it("takes over a lease whose pid is alive but belongs to another process now", async () => {
      const { leases } = context.store;
      const thread = newUlid();
      const { lease: old } = await leases.acquire(thread, { command: "thread exec" });
      const host = old.info().holder.host;
      // This process's pid with another start time: the holder died and its pid was reused.
      await old.transfer({ host, pid: process.pid, startTime: "1" });
      expect((await leases.read(thread))?.alive).toBe(false);
      const { replaced } = await leases.acquire(thread, { command: "thread exec" });
      expect(replaced?.holder).toEqual({ host, pid: process.pid, startTime: "1" });
    });

    it("gives a lost lease LEASE_LOST on renew and setChild, but release stays quiet", async () => {
      const { leases } = context.store;
      const thread = newUlid();
      const { lease: old } = await leases.acquire(thread, { command: "thread exec" });
      await handToDeadProcess(old);
      const { lease } = await leases.acquire(thread, { command: "thread exec" });

      for (const run of [() => old.renew(), () => old.setChild(null)]) {
        const error = await caught(run);
        expect(error.code).toBe("LEASE_LOST");
        expect(error.details).toEqual({ thread });
      }
      await old.release();
      expect(await leases.read(thread)).toEqual({ info: lease.info(), alive: true });
    });

    it("judges a holder on another host by expiry: busy before, taken over after", async () => {
      const { leases } = context.store;
      const other = await context.peer({ host: "other-host", leaseTtlMs: SHORT_TTL_MS });
      const thread = newUlid();
      const { lease: remote } = await other.leases.acquire(thread, { command: "thread exec" });
      // Its holder stops renewing, as a machine that went away does.
      const gone = { host: "other-host", pid: deadPid(), startTime: null };
      await remote.transfer(gone);

      const busy = await caught(() => leases.acquire(thread, { command: "thread exec" }));
      expect(busy.code).toBe("THREAD_BUSY");
      expect(busy.message).toContain(`pid ${gone.pid} on other-host`);
      expect(busy.details).toMatchObject({ host: "other-host", pid: gone.pid });
      expect(await leases.clearStale(thread)).toBeNull();

      await waitFor(
        async () => (await leases.read(thread))?.alive === false,
        "the lease to expire",
      );
      expect(await leases.live()).toEqual(new Set());
      const { lease, replaced } = await leases.acquire(thread, { command: "thread exec" });
      expect(replaced).toMatchObject({ token: remote.token, holder: gone });

      expect((await caught(() => remote.renew())).code).toBe("LEASE_LOST");
      expect((await caught(() => remote.setChild(null))).code).toBe("LEASE_LOST");
      await remote.release();
      expect(await leases.read(thread)).toEqual({ info: lease.info(), alive: true });
    });

    it("renew pushes the expiry forward", async () => {
      const ttlMs = 60_000;
      const store = await context.peer({ leaseTtlMs: ttlMs });
      const thread = newUlid();
      const { lease } = await store.leases.acquire(thread, { command: "thread exec" });
      const first = lease.info();
      expect(Date.parse(first.expiresAt)).toBe(Date.parse(first.acquiredAt) + ttlMs);
      const before = Date.now();
      await lease.renew();
      const renewed = lease.info();
      expect(Date.parse(renewed.expiresAt)).toBeGreaterThanOrEqual(before + ttlMs);
      expect(renewed.token).toBe(first.token);
      expect((await store.leases.read(thread))?.info).toEqual(renewed);
      expect((await context.store.leases.read(thread))?.info).toEqual(renewed);
    });

    it("renews a held lease in the background", async () => {
      const other = await context.peer({ host: "other-host", leaseTtlMs: SHORT_TTL_MS });
      const thread = newUlid();
      const { lease } = await other.leases.acquire(thread, { command: "thread exec" });
      const firstExpiry = Date.parse(lease.info().expiresAt);
      const { leases } = context.store;
      await waitFor(
        async () => Date.parse((await leases.read(thread))?.info.expiresAt ?? "") > firstExpiry,
        "a background renewal",
      );
      expect((await leases.read(thread))?.info.token).toBe(lease.token);
      await lease.release();
      expect(await leases.read(thread)).toBeNull();
    });

    it("records the agent process group and clears it", async () => {
      const { leases } = context.store;
      const thread = newUlid();
      const { lease } = await leases.acquire(thread, { command: "thread exec" });
      const child = { pid: 4242, pgid: 4242, startTime: "99" };
      await lease.setChild(child);
      expect(lease.info().child).toEqual(child);
      expect((await leases.read(thread))?.info.child).toEqual(child);
      await lease.setChild(null);
      expect((await leases.read(thread))?.info.child).toBeNull();
    });

    it("hands a lease to a worker that adopts it with the token", async () => {
      const { leases } = context.store;
      const thread = newUlid();
      const { lease } = await leases.acquire(thread, { command: "thread exec --background" });
      const child = { pid: 4242, pgid: 4242, startTime: "99" };
      await lease.setChild(child);
      // The worker has not adopted the lease yet (here: it exited before it could).
      const worker = await handToDeadProcess(lease);
      expect(await leases.read(thread)).toMatchObject({ info: { holder: worker }, alive: false });

      const adopted = await leases.adopt(thread, lease.token);
      expect(adopted.token).toBe(lease.token);
      expect(adopted.info()).toMatchObject({ holder: { pid: process.pid }, child });
      expect(await leases.read(thread)).toEqual({ info: adopted.info(), alive: true });
      await adopted.release();
      expect(await leases.read(thread)).toBeNull();
      expect((await caught(() => leases.adopt(thread, lease.token))).code).toBe("LEASE_LOST");
    });

    it("refuses adoption with a wrong token, leaving the lease as it was", async () => {
      const { leases } = context.store;
      const thread = newUlid();
      const { lease } = await leases.acquire(thread, { command: "thread exec" });
      const error = await caught(() => leases.adopt(thread, "wrong"));
      expect(error.code).toBe("THREAD_BUSY");
      expect(await leases.read(thread)).toEqual({ info: lease.info(), alive: true });

      await handToDeadProcess(lease);
      expect((await caught(() => leases.adopt(thread, "wrong"))).code).toBe("LEASE_LOST");
      expect((await leases.read(thread))?.info.token).toBe(lease.token);
    });

    it("clears a stale lease, and only a stale one", async () => {
      const { leases } = context.store;
      const thread = newUlid();
      expect(await leases.clearStale(thread)).toBeNull();
      const { lease } = await leases.acquire(thread, { command: "thread exec" });
      expect(await leases.clearStale(thread)).toBeNull();
      expect((await leases.read(thread))?.alive).toBe(true);

      const dead = await handToDeadProcess(lease);
      expect(await leases.clearStale(thread)).toMatchObject({ token: lease.token, holder: dead });
      expect(await leases.read(thread)).toBeNull();
      expect(await leases.clearStale(thread)).toBeNull();
    });
  });
}
