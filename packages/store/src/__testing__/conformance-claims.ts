import type { ThreadPointer } from "@united-workforce/protocol";
import { describe, expect, it } from "vitest";
import type { AcquiredLease, Store } from "../api.js";
import type { ConformanceContext } from "./conformance-context.js";
import { deadPid, pointer, waitFor } from "./store-fixtures.js";

const JAN_1 = Date.UTC(2025, 0, 1);
const CLAIMERS = 10;
/** A lease TTL short enough to wait out, long enough to outlast a few calls on a busy machine. */
const SHORT_TTL_MS = 500;
const COMMAND = "uwf thread exec --next";

/** Store pointers created a minute apart, in the order given (the first is the oldest). */
async function createInOrder(
  store: Store,
  ...overrides: Partial<ThreadPointer>[]
): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, override] of overrides.entries()) {
    const p = pointer(override, JAN_1 + i * 60_000);
    await store.threads.create(p);
    ids.push(p.thread);
  }
  return ids;
}

const claimed = (acquired: AcquiredLease | null): string | null => acquired?.lease.thread ?? null;

export function describeClaimConformance(context: ConformanceContext): void {
  // Long by design: the fleet-claim cases of the suite, one `it` each, in one describe block.
  describe("claims", () => {
    it("claims nothing when no thread is runnable", async () => {
      const { store } = context;
      expect(await store.leases.claimNext({ command: COMMAND })).toBeNull();
      await createInOrder(
        store,
        { status: "completed" },
        { status: "cancelled" },
        { status: "suspended", suspended: { role: "coder", reason: "which?", kind: "question" } },
        { parent: { thread: pointer().thread, step: "0000000000002", index: 0 } },
      );
      expect(await store.leases.claimNext({ command: COMMAND })).toBeNull();
    });

    it("claims the oldest runnable thread, skipping held, waiting and finished ones", async () => {
      const { store } = context;
      const [held, suspended, done, oldest, newer] = await createInOrder(
        store,
        {},
        { status: "suspended", suspended: { role: "coder", reason: "budget", kind: "budget" } },
        { status: "completed" },
        {},
        {},
      );
      const holder = await store.leases.acquire(held!, { command: "uwf thread exec" });
      const first = await store.leases.claimNext({ command: COMMAND });
      expect(claimed(first)).toBe(oldest);
      expect(first?.replaced).toBeNull();
      expect(first?.lease.info()).toMatchObject({ command: COMMAND, holder: { pid: process.pid } });
      expect((await store.leases.read(oldest!))?.info.token).toBe(first?.lease.token);
      expect(claimed(await store.leases.claimNext({ command: COMMAND }))).toBe(newer);
      expect(await store.leases.claimNext({ command: COMMAND })).toBeNull();
      // Released, the oldest is claimed again.
      await holder.lease.release();
      expect(claimed(await store.leases.claimNext({ command: COMMAND }))).toBe(held);
      expect([suspended, done]).not.toContain(claimed(first));
    });

    it("claims only threads of the workflow asked for", async () => {
      const { store } = context;
      const [, review] = await createInOrder(store, { workflow: "triage" }, { workflow: "review" });
      const query = { command: COMMAND, workflow: "review" };
      expect(claimed(await store.leases.claimNext(query))).toBe(review);
      expect(await store.leases.claimNext(query)).toBeNull();
      expect(await store.leases.claimNext({ command: COMMAND, workflow: "nothing" })).toBeNull();
    });

    it(`never gives one thread to two of ${CLAIMERS} concurrent claimers`, async () => {
      const { store } = context;
      const ids = await createInOrder(store, {}, {}, {}, {});
      const other = await context.peer({});
      const results = await Promise.all(
        Array.from({ length: CLAIMERS }, (_, i) =>
          (i % 2 === 0 ? store : other).leases.claimNext({ command: COMMAND }),
        ),
      );
      const threads = results.map(claimed).filter((id): id is string => id !== null);
      expect(threads.sort()).toEqual([...ids].sort());
    });

    it("takes over the lease of a holder that is gone", async () => {
      const { store } = context;
      const [thread] = await createInOrder(store, {});
      const { lease } = await store.leases.acquire(thread!, { command: "uwf thread exec" });
      const dead = { host: lease.info().holder.host, pid: deadPid(), startTime: "12345" };
      await lease.transfer(dead);
      const taken = await store.leases.claimNext({ command: COMMAND });
      expect(claimed(taken)).toBe(thread);
      expect(taken?.replaced).toMatchObject({ token: lease.token, holder: dead });
      expect((await store.leases.read(thread!))?.alive).toBe(true);
    });

    it("skips a lease held on another host until it expires, then takes it over", async () => {
      const { store } = context;
      const [thread] = await createInOrder(store, {});
      const other = await context.peer({ host: "other-host", leaseTtlMs: SHORT_TTL_MS });
      const { lease: remote } = await other.leases.acquire(thread!, { command: COMMAND });
      // Its holder stops renewing, as a machine that went away does.
      const gone = { host: "other-host", pid: deadPid(), startTime: null };
      await remote.transfer(gone);
      expect(await store.leases.claimNext({ command: COMMAND })).toBeNull();
      await waitFor(
        async () => (await store.leases.read(thread!))?.alive === false,
        "the lease to expire",
      );
      const taken = await store.leases.claimNext({ command: COMMAND });
      expect(claimed(taken)).toBe(thread);
      expect(taken?.replaced).toMatchObject({ token: remote.token, holder: gone });
    });
  });
}
