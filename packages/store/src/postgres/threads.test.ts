import { isUwfError, type UwfError } from "@united-workforce/util";
import { describe, expect, it } from "vitest";
import type { ThreadListItem } from "../api.js";
import { HASH_B, pointer } from "./__testing__/pointers.js";
import { usePostgres } from "./__testing__/server.js";
import { connect } from "./connection.js";
import { createPostgresLeases } from "./leases.js";
import { createPostgresThreads } from "./threads.js";

const pg = usePostgres();

async function store() {
  const { url, db } = await pg.migrated();
  const leases = createPostgresLeases(db, { host: "this-host", ttlMs: 60_000 });
  return { url, db, leases, threads: createPostgresThreads(db, () => leases.live()) };
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

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe("PostgreSQL threads", () => {
  it("create stores revision 1 and refuses an id that is taken", async () => {
    const { threads } = await store();
    const p = pointer();
    expect(await threads.exists(p.thread)).toBe(false);
    expect(await threads.create(p)).toEqual({ ...p, rev: 1 });
    expect(await threads.get(p.thread)).toEqual({ ...p, rev: 1 });
    expect(await threads.exists(p.thread)).toBe(true);
    const error = await caught(threads.create({ ...p, head: HASH_B }));
    expect(error.code).toBe("THREAD_EXISTS");
    expect(error.message).toBe(`thread ${p.thread} already exists`);
    expect((await threads.get(p.thread)).head).toBe(p.head);
  });

  it("get names what is missing or not an id", async () => {
    const { threads } = await store();
    const missing = pointer().thread;
    const error = await caught(threads.get(missing));
    expect([error.code, error.message]).toEqual(["THREAD_NOT_FOUND", `no thread ${missing}`]);
    expect((await caught(threads.get("nope"))).code).toBe("USAGE");
    expect(await threads.exists("nope")).toBe(false);
  });

  it("swap writes only over the expected revision", async () => {
    const { threads } = await store();
    const p = await threads.create(pointer());
    const moved = await threads.swap({ ...p, head: HASH_B, steps: 1 }, 1);
    expect(moved).toEqual({ ...p, head: HASH_B, steps: 1, rev: 2 });
    expect(await threads.swap({ ...p, status: "cancelled" }, 1)).toBeNull();
    expect(await threads.get(p.thread)).toEqual(moved);
    const gone = pointer();
    expect((await caught(threads.swap(gone, 0))).code).toBe("THREAD_NOT_FOUND");
  });

  it("of N concurrent swaps from the same revision, exactly one wins", async () => {
    const { url, threads } = await store();
    const p = await threads.create(pointer());
    const dbs = await Promise.all(Array.from({ length: 8 }, () => connect(url)));
    try {
      const writers = dbs.map((db) => createPostgresThreads(db, async () => new Set()));
      const results = await Promise.all(
        writers.map((w, i) => w.swap({ ...p, steps: i + 1, head: HASH_B }, 1)),
      );
      const winners = results.filter((r) => r !== null);
      expect(winners).toHaveLength(1);
      expect(await threads.get(p.thread)).toEqual(winners[0]);
      expect(winners[0]?.rev).toBe(2);
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
    }
  });

  it("a pointer written before revisions existed reads as revision 0", async () => {
    const { db, threads } = await store();
    const p = pointer();
    await db.execute("insert into uwf_threads (id, pointer) values ($1, $2)", [
      p.thread,
      JSON.stringify(p),
    ]);
    expect((await threads.get(p.thread)).rev).toBe(0);
    expect(await threads.swap({ ...p, steps: 1 }, 1)).toBeNull();
    expect((await threads.swap({ ...p, steps: 1 }, 0))?.rev).toBe(1);
  });

  it("classifies rows in SQL as the pointer parser does", async () => {
    const { db, threads } = await store();
    const p = pointer({
      status: "suspended",
      suspended: { role: "r", reason: "?", kind: "question" },
    });
    // Valid for JSON.parse + pointer-check: 1.0 is an integer, unknown keys are kept.
    const text = JSON.stringify({ ...p, extra: true }).replace('"steps":0', '"steps":1.0');
    await db.execute("insert into uwf_threads (id, pointer) values ($1, $2)", [p.thread, text]);
    expect((await threads.get(p.thread)).steps).toBe(1);
    expect((await threads.list({ statuses: ["suspended"] })).total).toBe(1);
    const bad = [
      { ...p, steps: -1 },
      { ...p, steps: 1.5 },
      { ...p, rev: null },
      { ...p, forkedFrom: null },
      { ...p, head: "short" },
      { ...p, suspended: { role: "r", reason: "?", kind: "other" } },
      { ...p, currentRole: 3 },
    ];
    for (const value of bad) {
      const q = { ...value, thread: pointer().thread };
      await db.execute("insert into uwf_threads (id, pointer) values ($1, $2)", [
        q.thread,
        JSON.stringify(q),
      ]);
      expect((await caught(threads.get(q.thread))).code).toBe("THREAD_CORRUPT");
    }
    expect((await threads.list({ statuses: ["corrupt"] })).total).toBe(bad.length);
  });

  it("reports a hand-broken row by name, like a broken file", async () => {
    const { url, db, threads } = await store();
    const p = await threads.create(pointer());
    await db.execute("update uwf_threads set pointer = $2 where id = $1", [
      p.thread,
      JSON.stringify({ ...p, status: "running" }),
    ]);
    const where = `${url} uwf_threads id=${p.thread}`;
    expect(threads.locate(p.thread)).toBe(where);
    const error = await caught(threads.get(p.thread));
    expect(error.code).toBe("THREAD_CORRUPT");
    expect(error.message).toBe(
      `${where}: \`status\` "running" is not idle, suspended, completed or cancelled`,
    );
    // A swap never writes over it, whatever revision the caller believed in.
    expect((await caught(threads.swap(p, 1))).code).toBe("THREAD_CORRUPT");
    await db.execute("update uwf_threads set pointer = 'garbage' where id = $1", [p.thread]);
    expect((await caught(threads.get(p.thread))).message).toMatch(
      new RegExp(`^${where.replace(/\./g, "\\.")}: not JSON`),
    );
  });

  describe("list", () => {
    const day = (n: number) => Date.parse(`2024-03-0${n}T12:00:00.000Z`);

    async function seeded() {
      const s = await store();
      const made = {
        idle: pointer({ createdMs: day(1), workflow: "a" }),
        suspended: pointer({
          createdMs: day(2),
          workflow: "a",
          status: "suspended",
          suspended: { role: "dev", reason: "why?", kind: "question" },
        }),
        completed: pointer({ createdMs: day(3), workflow: "b", status: "completed" }),
        cancelled: pointer({ createdMs: day(4), workflow: "b", status: "cancelled" }),
        running: pointer({ createdMs: day(5), workflow: "a" }),
        corrupt: pointer({ createdMs: day(6), workflow: "a" }),
        newest: pointer({ createdMs: day(7), workflow: "b" }),
      };
      for (const p of Object.values(made)) await s.threads.create(p);
      await s.db.execute("update uwf_threads set pointer = '{}' where id = $1", [
        made.corrupt.thread,
      ]);
      await s.leases.acquire(made.running.thread, { command: "thread exec" });
      const ids = (page: { items: ThreadListItem[] }) => page.items.map((item) => item.id);
      return { ...s, made, ids };
    }

    it("comes newest first with a total, corrupt and running threads included", async () => {
      const { threads, made, ids } = await seeded();
      const page = await threads.list();
      const all = Object.values(made).map((p) => p.thread);
      expect(ids(page)).toEqual([...all].reverse());
      expect(page.total).toBe(7);
      const corrupt = page.items.find((item) => item.id === made.corrupt.thread);
      expect(corrupt).toMatchObject({
        pointer: null,
        problem: `it names thread undefined, not ${made.corrupt.thread}`,
      });
      expect(page.items.filter((item) => item.running).map((item) => item.id)).toEqual([
        made.running.thread,
      ]);
    });

    it("filters by user-visible status: running and corrupt are derived", async () => {
      const { threads, made, ids } = await seeded();
      expect(ids(await threads.list({ statuses: ["idle"] }))).toEqual([
        made.newest.thread,
        made.idle.thread,
      ]);
      expect(ids(await threads.list({ statuses: ["running"] }))).toEqual([made.running.thread]);
      expect(ids(await threads.list({ statuses: ["corrupt"] }))).toEqual([made.corrupt.thread]);
      expect(ids(await threads.list({ statuses: ["idle", "running", "suspended"] }))).toEqual([
        made.newest.thread,
        made.running.thread,
        made.suspended.thread,
        made.idle.thread,
      ]);
      expect(await threads.list({ statuses: [] })).toEqual({ items: [], total: 0 });
    });

    it("filters by workflow and creation time (a corrupt pointer's time comes from its id)", async () => {
      const { threads, made, ids } = await seeded();
      expect(ids(await threads.list({ workflow: "b" }))).toEqual([
        made.newest.thread,
        made.cancelled.thread,
        made.completed.thread,
      ]);
      expect(ids(await threads.list({ createdAfterMs: day(5), createdBeforeMs: day(7) }))).toEqual([
        made.corrupt.thread,
      ]);
      expect(
        ids(await threads.list({ createdAfterMs: day(4) - 1, createdBeforeMs: day(5) + 1 })),
      ).toEqual([made.running.thread, made.cancelled.thread]);
    });

    it("pages with limit and offset; the total counts every page", async () => {
      const { threads, made, ids } = await seeded();
      const second = await threads.list({ limit: 2, offset: 2 });
      expect(ids(second)).toEqual([made.running.thread, made.cancelled.thread]);
      expect(second.total).toBe(7);
      const filtered = await threads.list({ workflow: "a", limit: 1, offset: 1 });
      // The corrupt thread's workflow cannot be known: it is in no workflow's listing.
      expect(ids(filtered)).toEqual([made.suspended.thread]);
      expect(filtered.total).toBe(3);
      expect(await threads.list({ offset: 50 })).toEqual({ items: [], total: 7 });
    });

    it("all() gives every thread oldest first", async () => {
      const { threads, made } = await seeded();
      const items = await collect(threads.all());
      expect(items.map((item) => item.id)).toEqual(Object.values(made).map((p) => p.thread));
      expect(items.find((item) => item.id === made.running.thread)?.running).toBe(true);
      expect(items.find((item) => item.id === made.corrupt.thread)?.problem).not.toBeNull();
      expect(items.find((item) => item.id === made.idle.thread)?.pointer).toEqual({
        ...made.idle,
        rev: 1,
      });
    });
  });
});
