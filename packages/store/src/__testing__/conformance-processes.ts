import type { ThreadPointer } from "@united-workforce/protocol";
import { newUlid } from "@united-workforce/util";
import { beforeAll, describe, expect, it } from "vitest";
import type { LeaseInfo, StoreOptions } from "../api.js";
import { assertBuiltStoreIsFresh } from "./built-store.js";
import type { ConformanceContext } from "./conformance-context.js";
import { caught, deadPid, pointer, waitFor } from "./store-fixtures.js";
import { startStoreWorker, startStoreWorkers } from "./store-workers.js";

const WORKERS = 8;
const SHORT_TTL_MS = 500;

interface Acquired {
  info: LeaseInfo;
  replaced: LeaseInfo | null;
}

/**
 * The same races and crashes with real processes: each worker opens the store on its own and
 * imports the built package (`pnpm exec tsc -b packages/store` first). Workers are all started
 * and ready before the racing calls are sent to every one of them at once.
 */
export function describeProcessConformance(context: ConformanceContext): void {
  // Long by design: the multi-process cases of the suite, one `it` each, in one describe block.
  const startWorkers = (count: number) =>
    startStoreWorkers(count, context.options, context.hooks.workerBackends);
  const startWorker = (overrides: Partial<StoreOptions> = {}) =>
    startStoreWorker({ ...context.options, ...overrides }, context.hooks.workerBackends);

  describe("across processes", () => {
    beforeAll(() => {
      assertBuiltStoreIsFresh();
    });

    it(`lets exactly one of ${WORKERS} processes swap a pointer from one revision`, async () => {
      const { threads } = context.store;
      const p = await threads.create(pointer());
      const workers = await startWorkers(WORKERS);
      const answers = await Promise.all(
        workers.map((worker, i) =>
          worker.call<ThreadPointer | null>(
            "swap",
            { ...p, head: `${i}`.padStart(13, "A"), steps: 1 },
            1,
          ),
        ),
      );
      expect(answers.map((answer) => answer.error ?? null)).toEqual(Array(WORKERS).fill(null));
      const winners = answers.filter((answer) => answer.value !== null);
      expect(winners).toHaveLength(1);
      expect(await threads.get(p.thread)).toEqual(winners[0]!.value);
      expect((await threads.get(p.thread)).rev).toBe(2);
    });

    it(`keeps every version when ${WORKERS} processes add one workflow at once`, async () => {
      const hashes = Array.from({ length: WORKERS }, (_, i) => `${i}`.padStart(13, "A"));
      const workers = await startWorkers(WORKERS);
      const answers = await Promise.all(
        workers.map((worker, i) => worker.call<boolean>("registryAdd", "shared", hashes[i])),
      );
      expect(answers).toEqual(Array(WORKERS).fill({ value: true }));
      const entry = (await context.store.registry.get("shared"))!;
      expect(entry.history.map((item) => item.hash).sort()).toEqual([...hashes].sort());
      expect(entry.current).toBe(entry.history[0]!.hash);
    });

    it(`gives one lease to exactly one of ${WORKERS} processes`, async () => {
      const thread = newUlid();
      const workers = await startWorkers(WORKERS);
      const answers = await Promise.all(
        workers.map((worker) => worker.call<Acquired>("acquire", thread)),
      );
      const winners = answers.filter((answer) => answer.value !== undefined);
      expect(winners).toHaveLength(1);
      const holder = winners[0]!.value!.info.holder;
      expect(workers.map((worker) => worker.pid)).toContain(holder.pid);
      const losers = answers.filter((answer) => answer.error !== undefined);
      expect(losers.map((answer) => answer.error!.code)).toEqual(
        Array(WORKERS - 1).fill("THREAD_BUSY"),
      );
      for (const loser of losers) expect(loser.error!.details).toMatchObject({ pid: holder.pid });
      expect((await context.store.leases.read(thread))?.info.holder).toEqual(holder);
    });

    it(`lets one of ${WORKERS} processes take over a stale lease`, async () => {
      const { leases } = context.store;
      const thread = newUlid();
      const { lease } = await leases.acquire(thread, { command: "thread exec" });
      await lease.transfer({ ...lease.info().holder, pid: deadPid(), startTime: "12345" });
      const workers = await startWorkers(WORKERS);
      const answers = await Promise.all(
        workers.map((worker) => worker.call<Acquired>("acquire", thread)),
      );
      const winners = answers.filter((answer) => answer.value !== undefined);
      expect(winners).toHaveLength(1);
      expect(winners[0]!.value!.replaced?.token).toBe(lease.token);
      expect(answers.filter((answer) => answer.error?.code === "THREAD_BUSY")).toHaveLength(
        WORKERS - 1,
      );
    });

    it("takes over the lease of a process that was killed holding it", async () => {
      const { leases } = context.store;
      const thread = newUlid();
      const worker = await startWorker();
      const held = await worker.call<Acquired>("acquire", thread);
      expect(held.value?.info.holder.pid).toBe(worker.pid);
      expect(await leases.read(thread)).toMatchObject({ alive: true });
      expect((await caught(() => leases.acquire(thread, { command: "thread exec" }))).code).toBe(
        "THREAD_BUSY",
      );

      await worker.kill();
      const { lease, replaced } = await leases.acquire(thread, { command: "thread exec" });
      expect(replaced).toMatchObject({
        token: held.value!.info.token,
        holder: { pid: worker.pid },
      });
      expect(await leases.read(thread)).toEqual({ info: lease.info(), alive: true });
    });

    it("takes over the lease of a killed process on another host once it expires", async () => {
      const { leases } = context.store;
      const thread = newUlid();
      const worker = await startWorker({ host: "other-host", leaseTtlMs: SHORT_TTL_MS });
      const held = await worker.call<Acquired>("acquire", thread);
      expect(held.value?.info.holder).toMatchObject({ host: "other-host", pid: worker.pid });
      await worker.kill();

      // From here the pid means nothing: only the unrenewed expiry can tell it is gone.
      await waitFor(
        async () => (await leases.read(thread))?.alive === false,
        "the lease to expire",
      );
      const { replaced } = await leases.acquire(thread, { command: "thread exec" });
      expect(replaced).toMatchObject({
        token: held.value!.info.token,
        holder: { host: "other-host", pid: worker.pid },
      });
    });

    it("sees a live process renew its lease, and free it on release", async () => {
      const { leases } = context.store;
      const thread = newUlid();
      const worker = await startWorker({ host: "other-host", leaseTtlMs: SHORT_TTL_MS });
      const held = await worker.call<Acquired>("acquire", thread);
      const firstExpiry = Date.parse(held.value!.info.expiresAt);
      await waitFor(
        async () => Date.parse((await leases.read(thread))?.info.expiresAt ?? "") > firstExpiry,
        "the worker to renew its lease",
      );
      expect((await leases.read(thread))?.info.token).toBe(held.value!.info.token);
      await worker.call("release", thread);
      expect(await leases.read(thread)).toBeNull();
      await worker.close();
    });
  });
}
