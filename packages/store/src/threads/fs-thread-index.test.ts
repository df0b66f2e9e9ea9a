/**
 * The filesystem's list index (fs-thread-index.ts): kept with each pointer write, rebuilt when
 * missing, damaged or stale, and never trusted over the pointers.
 */
import { readdirSync, readFileSync, rmSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ThreadPointer } from "@united-workforce/protocol";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openTempStore, pointer } from "../__testing__/store-fixtures.js";
import type { Store, ThreadPage } from "../api.js";
import { openStore } from "../open-store.js";

let home: string;
let store: Store;
let removeTemp: () => Promise<void>;

beforeEach(async () => {
  ({ home, store, remove: removeTemp } = await openTempStore("thread-index"));
});
afterEach(() => removeTemp());

const DAY_MS = 86_400_000;
const JAN_1 = Date.UTC(2025, 0, 1);
const indexDir = () => join(home, "index", "threads");
const dirtyDir = () => join(indexDir(), "dirty");
const ids = (page: ThreadPage) => page.items.map((item) => item.id);

async function make(count: number, status: ThreadPointer["status"] = "idle"): Promise<string[]> {
  const made: string[] = [];
  for (let day = 0; day < count; day++) {
    const suspended =
      status === "suspended" ? { role: "coder", reason: "?", kind: "question" as const } : null;
    const start = `${String(day).padStart(12, "0")}A`;
    const p = pointer({ status, suspended, start }, JAN_1 + day * DAY_MS);
    made.push((await store.threads.create(p)).thread);
  }
  return made.reverse();
}

describe("thread list index", () => {
  it("rebuilds itself when its files are deleted", async () => {
    const newestFirst = await make(4);
    rmSync(indexDir(), { recursive: true, force: true });
    expect(ids(await store.threads.list())).toEqual(newestFirst);
    expect(ids(await store.threads.list({ start: "000000000001A" }))).toEqual([newestFirst[2]]);
  });

  it("rebuilds itself when its manifest or a segment is damaged", async () => {
    const newestFirst = await make(3);
    const [manifest] = readdirSync(indexDir()).filter((name) => name.startsWith("manifest-"));
    writeFileSync(join(indexDir(), manifest!), "{ half");
    expect(ids(await store.threads.list())).toEqual(newestFirst);
    for (const name of readdirSync(indexDir()).filter((n) => n.startsWith("seg-")))
      writeFileSync(join(indexDir(), name), "[[");
    expect(ids(await store.threads.list({ limit: 2 }))).toEqual(newestFirst.slice(0, 2));
  });

  it("heals a write that died between its pointer and the index", async () => {
    const [id] = await make(1);
    const p = await store.threads.get(id!);
    // A swap that wrote its marker and the pointer, then was killed.
    const marker = join(dirtyDir(), `${id}.99999-0`);
    writeFileSync(marker, "");
    const suspended = { role: "coder", reason: "?", kind: "question" as const };
    writeFileSync(
      store.threads.locate(id!),
      JSON.stringify({ ...p, status: "suspended", suspended, rev: 2 }),
    );
    expect(ids(await store.threads.list({ statuses: ["suspended"] }))).toEqual([id]);
    // Once no writer can be left, a reader puts it in the index and drops the marker.
    const longAgo = new Date(Date.now() - 120_000);
    utimesSync(marker, longAgo, longAgo);
    expect(ids(await store.threads.list({ statuses: ["suspended"] }))).toEqual([id]);
    expect(readdirSync(dirtyDir())).toEqual([]);
    expect(ids(await store.threads.list({ statuses: ["suspended"] }))).toEqual([id]);
    expect(await store.threads.list({ statuses: ["idle"] })).toEqual({ items: [], more: false });
  });

  it("drops a pointer removed by hand, and shows one added by hand", async () => {
    const [newest, removed, oldest] = await make(3);
    unlinkSync(store.threads.locate(removed!));
    expect(ids(await store.threads.list())).toEqual([newest, oldest]);
    const added = pointer({}, JAN_1 + 10 * DAY_MS);
    writeFileSync(store.threads.locate(added.thread), JSON.stringify(added));
    expect(ids(await store.threads.list({ limit: 1 }))).toEqual([added.thread]);
  });

  it("is rebuilt by reindex, which counts the threads", async () => {
    await make(5);
    expect(await store.threads.reindex()).toEqual({ threads: 5 });
  });

  it("stays whole when several stores write at once", async () => {
    const others = await Promise.all([1, 2, 3].map(() => openStore({ home })));
    try {
      const writers = [store, ...others];
      const created = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          writers[i % writers.length]!.threads.create(pointer({}, JAN_1 + i * 1000)),
        ),
      );
      await Promise.all(
        created.map((p, i) =>
          writers[(i + 1) % writers.length]!.threads.swap({ ...p, status: "completed" }, 1),
        ),
      );
      expect(readdirSync(dirtyDir())).toEqual([]);
      const page = await store.threads.list({ statuses: ["completed"], count: true });
      expect(page.total).toBe(40);
      expect(ids(page)).toEqual(created.map((p) => p.thread).reverse());
      // The index alone agrees: nothing needed a rebuild or a heal.
      expect(await store.threads.reindex()).toEqual({ threads: 40 });
      expect((await store.threads.list({ statuses: ["completed"], count: true })).total).toBe(40);
    } finally {
      await Promise.all(others.map((other) => other.close()));
    }
  });

  it("folds its journal of writes into the segments as it grows", async () => {
    const newestFirst = await make(300);
    const names = readdirSync(indexDir());
    // Written since the last fold: fewer than every write.
    const journal = names.find((name) => name.startsWith("journal-"));
    expect(journal).toBeDefined();
    expect(names.some((name) => name.startsWith("seg-"))).toBe(true);
    expect(names.filter((name) => name.startsWith("manifest-"))).toHaveLength(1);
    const page = await store.threads.list({ limit: 3, offset: 150, count: true });
    expect([ids(page), page.more, page.total]).toEqual([newestFirst.slice(150, 153), true, 300]);
    expect(await store.threads.list({ start: "000000000299A" })).toMatchObject({
      items: [{ id: newestFirst[0] }],
    });
  });

  it("spreads many threads over segments and pages across them", async () => {
    await make(1);
    const made: string[] = [];
    for (let i = 0; i < 1_100; i++) {
      const p = pointer({}, JAN_1 + (i + 1) * 1000);
      writeFileSync(store.threads.locate(p.thread), JSON.stringify(p));
      made.push(p.thread);
    }
    expect(await store.threads.reindex()).toEqual({ threads: 1_101 });
    const newestFirst = made.reverse();
    const segments = readdirSync(indexDir()).filter((name) => name.startsWith("seg-"));
    expect(segments.length).toBeGreaterThan(1);
    const page = await store.threads.list({ limit: 50, offset: 580 });
    expect([ids(page), page.more]).toEqual([newestFirst.slice(580, 630), true]);
  });

  it("lists the pointer folder once after a write, not on every read", async () => {
    const newestFirst = await make(2);
    const listings = () => {
      const [journal] = readdirSync(indexDir()).filter((name) => name.startsWith("journal-"));
      return readFileSync(join(indexDir(), journal!), "utf8")
        .split("\n")
        .filter((line) => line.includes('"entry":null')).length;
    };
    // Right after a write the folder's time cannot tell a same-tick change by hand: the first
    // reader lists the folder; reading later than the clock's tick, it records that it did.
    const now = Date.now();
    const later = vi.spyOn(Date, "now").mockReturnValue(now + 1_000);
    try {
      expect(ids(await store.threads.list())).toEqual(newestFirst);
      expect(listings()).toBe(1);
      expect(ids(await store.threads.list())).toEqual(newestFirst);
      expect(listings()).toBe(1);
    } finally {
      later.mockRestore();
    }
  });
});
