import { describe, expect, it } from "vitest";
import { caught, pointer } from "../../store/src/__testing__/store-fixtures.js";
import { usePostgres } from "./__testing__/server.js";
import { createPostgresLeases } from "./leases.js";
import { createPostgresThreads } from "./threads.js";

/**
 * What only the PostgreSQL threads do: rows edited by hand, and the SQL that classifies them
 * for listing. Everything else is in the conformance suite (conformance.postgres.test.ts).
 */

const pg = usePostgres();

async function store() {
  const { url, db } = await pg.migrated();
  const leases = createPostgresLeases(db, { host: "runner-1", ttlMs: 60_000 });
  return { url, db, threads: createPostgresThreads(db, () => leases.live()) };
}

describe("PostgreSQL threads", () => {
  it("read a pointer written before revisions existed as revision 0", async () => {
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

  it("classify rows in SQL exactly as the pointer parser does", async () => {
    const { db, threads } = await store();
    const p = pointer({
      status: "suspended",
      suspended: { role: "r", reason: "?", kind: "question" },
    });
    // Valid for JSON.parse and pointer-check: 1.0 is an integer, unknown keys are kept.
    const text = JSON.stringify({ ...p, extra: true }).replace('"steps":0', '"steps":1.0');
    await db.execute("insert into uwf_threads (id, pointer) values ($1, $2)", [p.thread, text]);
    expect((await threads.get(p.thread)).steps).toBe(1);
    expect((await threads.list({ statuses: ["suspended"], count: true })).total).toBe(1);
    const bad: Record<string, unknown>[] = [
      { steps: -1 },
      { steps: 1.5 },
      { rev: null },
      { forkedFrom: null },
      { head: "short" },
      { suspended: { role: "r", reason: "?", kind: "other" } },
      { currentRole: 3 },
      { thread: "01ARZ3NDEKTSV4RRFFQ69G5FAV" },
      { parent: { thread: "not-an-id", step: "0000000000009", index: 0 } },
      { parent: { thread: p.thread, step: "short", index: 0 } },
      { parent: { thread: p.thread, step: "0000000000009", index: -1 } },
      { parent: null },
    ];
    for (const override of bad) {
      const id = pointer().thread;
      await db.execute("insert into uwf_threads (id, pointer) values ($1, $2)", [
        id,
        JSON.stringify({ ...p, thread: id, ...override }),
      ]);
      expect((await caught(() => threads.get(id))).code).toBe("THREAD_CORRUPT");
    }
    expect((await threads.list({ statuses: ["corrupt"], count: true })).total).toBe(bad.length);
    expect((await threads.list({ statuses: ["suspended"], count: true })).total).toBe(1);
  });

  it("report a hand-broken row by name, like a broken file, and never swap over it", async () => {
    const { url, db, threads } = await store();
    const p = await threads.create(pointer());
    await db.execute("update uwf_threads set pointer = $2 where id = $1", [
      p.thread,
      JSON.stringify({ ...p, status: "running" }),
    ]);
    const where = `${url} uwf_threads id=${p.thread}`;
    expect(threads.locate(p.thread)).toBe(where);
    const error = await caught(() => threads.get(p.thread));
    expect(error.code).toBe("THREAD_CORRUPT");
    expect(error.message).toBe(
      `${where}: \`status\` is "running", not idle, suspended, completed or cancelled`,
    );
    // Whatever revision the caller believed in.
    expect((await caught(() => threads.swap(p, 1))).code).toBe("THREAD_CORRUPT");
    await db.execute("update uwf_threads set pointer = 'garbage' where id = $1", [p.thread]);
    expect((await caught(() => threads.get(p.thread))).message).toMatch(/: not JSON \(/);
  });

  it("refuse rows whose id is not a thread id", async () => {
    const { db } = await store();
    const error = await caught(() =>
      db.execute("insert into uwf_threads (id, pointer) values ('../x', '{}')"),
    );
    expect(error.message).toContain("uwf_threads_id_check");
  });
});
