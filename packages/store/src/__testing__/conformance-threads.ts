import type { ThreadPointer } from "@united-workforce/protocol";
import { newUlid } from "@united-workforce/util";
import { describe, expect, it } from "vitest";
import type { ThreadListItem } from "../api.js";
import type { ConformanceContext } from "./conformance-context.js";
import { caught, deadPid, pointer } from "./store-fixtures.js";

const CONTENDERS = 20;
const DAY_MS = 86_400_000;
const JAN_1 = Date.UTC(2025, 0, 1);

export function describeThreadConformance(context: ConformanceContext): void {
  // Long by design: the thread-pointer cases of the suite, one `it` each, in one describe block.
  const { hooks } = context;

  describe("threads", () => {
    it("creates a pointer at revision 1 and reads it back", async () => {
      const { threads } = context.store;
      const p = pointer({
        status: "suspended",
        suspended: { role: "coder", reason: "which branch?", kind: "question" },
        forkedFrom: "0000000000009",
        agent: "/opt/agents/bin/my-agent --scenario 'a b.yaml'",
      });
      expect(await threads.exists(p.thread)).toBe(false);
      expect(await threads.create(p)).toEqual({ ...p, rev: 1 });
      expect(await threads.get(p.thread)).toEqual({ ...p, rev: 1 });
      expect(await threads.exists(p.thread)).toBe(true);
    });

    it("refuses a second create of one id, keeping the first pointer", async () => {
      const { threads } = context.store;
      const p = pointer();
      await threads.create(p);
      const error = await caught(() => threads.create({ ...p, head: "0000000000003" }));
      expect(error.code).toBe("THREAD_EXISTS");
      expect(error.details).toEqual({ thread: p.thread });
      expect(await threads.get(p.thread)).toEqual({ ...p, rev: 1 });
    });

    // Triggered starts (one GitHub event delivered twice at once) rely on this: one pointer.
    it(`lets exactly one of ${CONTENDERS} concurrent creates of one id win`, async () => {
      const { threads } = context.store;
      const p = pointer();
      const heads = Array.from({ length: CONTENDERS }, (_, i) => `${i}`.padStart(13, "A"));
      const results = await Promise.allSettled(heads.map((head) => threads.create({ ...p, head })));
      const winners = results.filter((result) => result.status === "fulfilled");
      expect(winners).toHaveLength(1);
      for (const result of results) {
        if (result.status === "rejected") expect(result.reason.code).toBe("THREAD_EXISTS");
      }
      expect(await threads.get(p.thread)).toEqual(winners[0]!.value);
    });

    it("reports a missing thread with a hint", async () => {
      const { threads } = context.store;
      const id = newUlid();
      const error = await caught(() => threads.get(id));
      expect([error.code, error.hint]).toEqual([
        "THREAD_NOT_FOUND",
        "`uwf thread list` shows the threads",
      ]);
      expect((await caught(() => threads.swap(pointer({ thread: id }), 1))).code).toBe(
        "THREAD_NOT_FOUND",
      );
    });

    it("refuses a malformed id before touching storage", async () => {
      const { threads } = context.store;
      expect((await caught(() => threads.get("../../etc/passwd"))).code).toBe("USAGE");
      expect((await caught(() => threads.create(pointer({ thread: "../x" })))).code).toBe("USAGE");
      expect((await caught(() => threads.swap(pointer({ thread: "../x" }), 1))).code).toBe("USAGE");
      expect(() => threads.locate("../x")).toThrow(/is not a thread id/);
      expect(await threads.exists("../x")).toBe(false);
    });

    it("swaps only from the expected revision; a stale one writes nothing", async () => {
      const { threads } = context.store;
      const p = pointer();
      await threads.create(p);
      const moved = { ...p, head: "0000000000003", steps: 1 };
      expect(await threads.swap(moved, 1)).toEqual({ ...moved, rev: 2 });
      expect(await threads.get(p.thread)).toEqual({ ...moved, rev: 2 });

      expect(await threads.swap({ ...p, head: "0000000000004", steps: 9 }, 1)).toBeNull();
      expect(await threads.get(p.thread)).toEqual({ ...moved, rev: 2 });

      let current = await threads.get(p.thread);
      for (let step = 2; step <= 5; step++) {
        const stored = await threads.swap({ ...current, steps: step }, current.rev!);
        expect(stored).toMatchObject({ steps: step, rev: current.rev! + 1 });
        current = stored!;
      }
      expect(await threads.get(p.thread)).toEqual(current);
    });

    it(`lets exactly one of ${CONTENDERS} concurrent swaps from one revision win`, async () => {
      const { threads } = context.store;
      const p = pointer();
      await threads.create(p);
      const heads = Array.from({ length: CONTENDERS }, (_, i) => `${i}`.padStart(13, "A"));
      const results = await Promise.all(
        heads.map((head) => threads.swap({ ...p, head, steps: 1 }, 1)),
      );
      const winners = results.filter((result) => result !== null);
      expect(winners).toHaveLength(1);
      expect(winners[0]!.rev).toBe(2);
      expect(await threads.get(p.thread)).toEqual(winners[0]);
    });

    it.skipIf(!hooks.corruptPointer)(
      "names where a corrupt pointer lives instead of crashing",
      async () => {
        const { threads } = context.store;
        const p = pointer();
        await threads.create(p);
        await hooks.corruptPointer!(context.store, p.thread);
        const error = await caught(() => threads.get(p.thread));
        expect(error.code).toBe("THREAD_CORRUPT");
        expect(error.message.startsWith(`${threads.locate(p.thread)}: `)).toBe(true);
        expect(error.details).toEqual({ thread: p.thread, file: threads.locate(p.thread) });
        expect((await caught(() => threads.swap(p, 1))).code).toBe("THREAD_CORRUPT");
        expect(await threads.exists(p.thread)).toBe(true);
        const { items } = await threads.list();
        expect(items).toEqual([
          { id: p.thread, pointer: null, problem: expect.any(String), running: false },
        ]);
      },
    );

    it("lists nothing in an empty store", async () => {
      const { threads } = context.store;
      expect(await threads.list()).toEqual({ items: [], more: false });
      expect(await threads.list({ limit: 5, offset: 5 })).toEqual({ items: [], more: false });
      expect(await threads.list({ count: true })).toEqual({ items: [], more: false, total: 0 });
      expect(await collect(threads.all())).toEqual([]);
    });

    it("lists newest first with paging; `all` yields oldest first", async () => {
      const { threads } = context.store;
      const created: ThreadPointer[] = [];
      for (let day = 0; day < 7; day++) {
        created.push(await threads.create(pointer({}, JAN_1 + day * DAY_MS)));
      }
      const newestFirst = [...created].reverse().map((p) => p.thread);
      const page = await threads.list();
      expect(page.more).toBe(false);
      expect(page.total).toBeUndefined();
      expect(page.items.map((item) => item.id)).toEqual(newestFirst);
      expect(page.items[0]).toEqual({
        id: created[6]!.thread,
        pointer: created[6],
        problem: null,
        running: false,
      });
      const first = await threads.list({ limit: 3 });
      expect([ids(first), first.more]).toEqual([newestFirst.slice(0, 3), true]);
      expect(ids(await threads.list({ limit: 3, offset: 3 }))).toEqual(newestFirst.slice(3, 6));
      const last = await threads.list({ limit: 3, offset: 6, count: true });
      expect([ids(last), last.more, last.total]).toEqual([newestFirst.slice(6), false, 7]);
      // Exactly a page left: no more after it.
      expect((await threads.list({ limit: 3, offset: 4 })).more).toBe(false);
      expect(await threads.list({ offset: 7 })).toEqual({ items: [], more: false });
      expect(await threads.list({ offset: 7, count: true })).toEqual({
        items: [],
        more: false,
        total: 7,
      });
      expect(ids(await threads.list({ offset: 5 }))).toEqual(newestFirst.slice(5));
      expect((await collect(threads.all())).map((item) => item.id)).toEqual(
        created.map((p) => p.thread),
      );
    });

    it("filters by status, running (a live lease) and corrupt included", async () => {
      const { threads, leases } = context.store;
      const make = async (overrides: Partial<ThreadPointer>, day: number) =>
        (await threads.create(pointer(overrides, JAN_1 + day * DAY_MS))).thread;
      const idle = await make({}, 0);
      const suspended = await make(
        { status: "suspended", suspended: { role: "r", reason: "?", kind: "question" } },
        1,
      );
      const completed = await make({ status: "completed" }, 2);
      const cancelled = await make({ status: "cancelled" }, 3);
      const running = await make({}, 4);
      const { lease } = await leases.acquire(running, { command: "thread exec" });
      const corrupt = hooks.corruptPointer ? await make({}, 5) : null;
      if (corrupt !== null) await hooks.corruptPointer!(context.store, corrupt);

      const only = async (...statuses: string[]) => ids(await threads.list({ statuses }));
      expect(await only("idle")).toEqual([idle]);
      expect(await only("suspended")).toEqual([suspended]);
      expect(await only("completed")).toEqual([completed]);
      expect(await only("cancelled")).toEqual([cancelled]);
      expect(await only("running")).toEqual([running]);
      expect(await only("idle", "running")).toEqual([running, idle]);
      expect(await threads.list({ statuses: [] })).toEqual({ items: [], more: false });
      const runningItem = (await threads.list({ statuses: ["running"] })).items[0]!;
      expect(runningItem).toMatchObject({ running: true, pointer: { status: "idle" } });
      if (corrupt !== null) expect(await only("corrupt")).toEqual([corrupt]);

      // A lease whose holder died does not make its thread running.
      await lease.transfer({ ...lease.info().holder, pid: deadPid(), startTime: "12345" });
      expect(await only("running")).toEqual([]);
      await lease.release();
      expect(await only("running")).toEqual([]);
      expect(await only("idle")).toEqual([running, idle]);
    });

    it("filters by workflow and strictly by creation time", async () => {
      const { threads } = context.store;
      const make = async (workflow: string, day: number) =>
        (await threads.create(pointer({ workflow }, JAN_1 + day * DAY_MS))).thread;
      const a0 = await make("a", 0);
      const b1 = await make("b", 1);
      const a2 = await make("a", 2);
      const a3 = await make("a", 3);
      const day = (n: number) => JAN_1 + n * DAY_MS;

      expect(ids(await threads.list({ workflow: "a" }))).toEqual([a3, a2, a0]);
      expect(ids(await threads.list({ workflow: "nope" }))).toEqual([]);
      expect(ids(await threads.list({ createdAfterMs: day(1) }))).toEqual([a3, a2]);
      expect(ids(await threads.list({ createdBeforeMs: day(1) }))).toEqual([a0]);
      expect(ids(await threads.list({ createdAfterMs: day(0), createdBeforeMs: day(3) }))).toEqual([
        a2,
        b1,
      ]);
      const page = await threads.list({ workflow: "a", createdAfterMs: day(0), limit: 1 });
      expect([ids(page), page.more]).toEqual([[a3], true]);
      const counted = await threads.list({ workflow: "a", limit: 1, count: true });
      expect([ids(counted), counted.more, counted.total]).toEqual([[a3], true, 3]);
    });

    it.skipIf(!hooks.rewritePointer)(
      "shows a pointer edited by hand as it is now, whatever a list said of it before",
      async () => {
        const { threads } = context.store;
        const p = await threads.create(pointer({}, JAN_1));
        expect(ids(await threads.list({ statuses: ["idle"] }))).toEqual([p.thread]);
        const edited = { ...p, status: "completed" };
        await hooks.rewritePointer!(context.store, p.thread, JSON.stringify(edited));
        expect((await threads.list()).items.map((item) => item.pointer)).toEqual([edited]);
        // Not under the status it no longer has; under the new one once a list has seen it.
        expect(await threads.list({ statuses: ["idle"] })).toEqual({ items: [], more: false });
        expect(ids(await threads.list({ statuses: ["completed"] }))).toEqual([p.thread]);
      },
    );

    it("pages a filtered list, saying whether more match", async () => {
      const { threads } = context.store;
      const made: string[] = [];
      for (let day = 0; day < 9; day++) {
        const status = day % 3 === 0 ? "suspended" : "idle";
        const suspended =
          status === "suspended" ? { role: "coder", reason: "?", kind: "question" as const } : null;
        made.push(
          (await threads.create(pointer({ status, suspended }, JAN_1 + day * DAY_MS))).thread,
        );
      }
      const [s0, , , s3, , , s6] = made;
      const first = await threads.list({ statuses: ["suspended"], limit: 2 });
      expect([ids(first), first.more]).toEqual([[s6, s3], true]);
      const second = await threads.list({ statuses: ["suspended"], limit: 2, offset: 2 });
      expect([ids(second), second.more]).toEqual([[s0], false]);
      const exact = await threads.list({ statuses: ["suspended"], limit: 3 });
      expect([ids(exact), exact.more]).toEqual([[s6, s3, s0], false]);
      const idle = await threads.list({ statuses: ["idle"], limit: 6, count: true });
      expect([ids(idle).length, idle.more, idle.total]).toEqual([6, false, 6]);
    });

    it("reindexes what it indexes and lists the same after", async () => {
      const { threads } = context.store;
      for (let day = 0; day < 3; day++) await threads.create(pointer({}, JAN_1 + day * DAY_MS));
      const before = ids(await threads.list());
      const rebuilt = await threads.reindex();
      // A backend whose database keeps its indexes itself rebuilds nothing (null).
      expect(rebuilt === null || rebuilt.threads === 3).toBe(true);
      expect(ids(await threads.list())).toEqual(before);
    });

    it("lists oldest first, and pages either way by a cursor that a leaving thread cannot shift", async () => {
      const { threads } = context.store;
      const made: ThreadPointer[] = [];
      for (let day = 0; day < 6; day++) {
        const status = day === 2 ? "suspended" : "idle";
        const suspended =
          status === "suspended" ? { role: "coder", reason: "?", kind: "question" as const } : null;
        made.push(await threads.create(pointer({ status, suspended }, JAN_1 + day * DAY_MS)));
      }
      const [t0, t1, , , t4, t5] = made.map((p) => p.thread);
      const oldest = { statuses: ["idle"], oldestFirst: true, limit: 2 };
      const first = await threads.list(oldest);
      expect([ids(first), first.more]).toEqual([[t0, t1], true]);
      // t3 leaves the idle list between pages: the cursor still lands on t4, an offset would not.
      expect(
        await threads.swap({ ...made[3]!, status: "completed" }, made[3]!.rev ?? 1),
      ).not.toBeNull();
      const second = await threads.list({ ...oldest, after: t1 });
      expect([ids(second), second.more]).toEqual([[t4, t5], false]);
      const newest = await threads.list({ statuses: ["idle"], after: t4, limit: 5 });
      expect([ids(newest), newest.more]).toEqual([[t1, t0], false]);
      expect(ids(await threads.list({ oldestFirst: true, after: t5 }))).toEqual([]);
    });

    it("filters by a piece of the title, in any case", async () => {
      const { threads } = context.store;
      const make = async (title: string | undefined, day: number) =>
        (await threads.create(pointer(title === undefined ? {} : { title }, JAN_1 + day * DAY_MS)))
          .thread;
      const login = await make("Fix the Login timeout", 0);
      await make("Write the release notes", 1);
      await make(undefined, 2);
      const logins = await make("login: 100% of 50_000 users", 3);
      expect(ids(await threads.list({ title: "LOGIN" }))).toEqual([logins, login]);
      // Text is matched as it is: no pattern characters.
      expect(ids(await threads.list({ title: "100%" }))).toEqual([logins]);
      expect(ids(await threads.list({ title: "_" }))).toEqual([logins]);
      const page = await threads.list({ title: "login", limit: 1 });
      expect([ids(page), page.more]).toEqual([[logins], true]);
      const next = await threads.list({ title: "login", limit: 1, offset: 1, count: true });
      expect([ids(next), next.more, next.total]).toEqual([[login], false, 2]);
    });

    it("finds a fork family by its StartNode, and only it", async () => {
      const { threads } = context.store;
      const make = async (start: string, day: number, forkedFrom?: string) =>
        (
          await threads.create(
            pointer(
              { start, head: forkedFrom ?? start, ...(forkedFrom ? { forkedFrom } : {}) },
              JAN_1 + day * DAY_MS,
            ),
          )
        ).thread;
      const original = await make("000000000000A", 0);
      await make("000000000000B", 1);
      const fork = await make("000000000000A", 2, "000000000000C");
      const forkOfFork = await make("000000000000A", 3, "000000000000D");
      expect(ids(await threads.list({ start: "000000000000A" }))).toEqual([
        forkOfFork,
        fork,
        original,
      ]);
      expect((await threads.list({ start: "000000000000A", limit: 1 })).more).toBe(true);
      expect((await threads.list({ start: "000000000000A", count: true })).total).toBe(3);
      expect(ids(await threads.list({ start: "000000000000E" }))).toEqual([]);
      // Swapping a pointer keeps it in its family (PostgreSQL derives the column again).
      const p = await threads.get(fork);
      await threads.swap({ ...p, head: "000000000000F", steps: 4 }, p.rev!);
      expect(ids(await threads.list({ start: "000000000000A", workflow: p.workflow }))).toContain(
        fork,
      );
    });

    it("keeps a thread suspended by a budget readable, listed as suspended", async () => {
      const { threads } = context.store;
      const p = pointer({
        status: "suspended",
        suspended: {
          role: "coder",
          reason: "the run reached its cost limit",
          kind: "budget",
          prompt: "Implement the plan.",
          location: null,
        },
      });
      await threads.create(p);
      expect(await threads.get(p.thread)).toEqual({ ...p, rev: 1 });
      const page = await threads.list({ statuses: ["suspended"] });
      expect(ids(page)).toEqual([p.thread]);
      expect(page.items[0]!.problem).toBeNull();
    });

    it("keeps threads stopped by a guard or waiting to retry readable, with their details", async () => {
      const { threads } = context.store;
      const guarded = pointer({
        status: "suspended",
        suspended: {
          role: "fixer",
          reason: 'role "fixer" has reached its maxVisits of 3 steps in this thread',
          kind: "guard",
          guard: "maxVisits",
          prompt: "Fix it.",
          location: null,
        },
      });
      const retrying = pointer({
        status: "suspended",
        suspended: {
          role: "fixer",
          reason: "rate limited",
          kind: "retry",
          retryAfter: "2026-01-01T00:10:00.000Z",
          prompt: "Fix it.",
          location: null,
        },
      });
      for (const p of [guarded, retrying]) {
        await threads.create(p);
        expect(await threads.get(p.thread)).toEqual({ ...p, rev: 1 });
      }
      const page = await threads.list({ statuses: ["suspended"] });
      expect(page.items.map((item) => item.problem)).toEqual([null, null]);
    });

    it("keeps a fan-out's parent waiting on its children and a child naming its parent readable", async () => {
      const { threads } = context.store;
      const parent = pointer({
        status: "suspended",
        suspended: {
          role: "collect",
          reason: "child 01J… of role review failed",
          kind: "fanout",
          prompt: "Review {{{item}}}",
          location: null,
        },
      });
      const child = pointer({ parent: { thread: parent.thread, step: "0000000000009", index: 3 } });
      for (const p of [parent, child]) {
        await threads.create(p);
        expect(await threads.get(p.thread)).toEqual({ ...p, rev: 1 });
      }
      const page = await threads.list();
      expect(page.items.map((item) => item.problem)).toEqual([null, null]);
    });

    it.skipIf(!hooks.corruptPointer)("places a corrupt thread in time by its id", async () => {
      const { threads } = context.store;
      const p = pointer({}, JAN_1 + 5 * DAY_MS);
      await threads.create(p);
      await hooks.corruptPointer!(context.store, p.thread);
      const day = (n: number) => JAN_1 + n * DAY_MS;
      expect(ids(await threads.list({ createdAfterMs: day(4) }))).toEqual([p.thread]);
      expect(ids(await threads.list({ createdBeforeMs: day(5) }))).toEqual([]);
      expect(ids(await threads.list({ workflow: p.workflow }))).toEqual([]);
    });
  });
}

function ids(page: { items: ThreadListItem[] }): string[] {
  return page.items.map((item) => item.id);
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
