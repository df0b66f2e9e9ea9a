/**
 * What only the filesystem keeps of threads: pointer files, their temp files and mutexes, and
 * pointers written before revisions existed. What every backend does with threads is in the
 * conformance suite (__testing__/conformance-threads.ts).
 */
import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { caught, deadPid, openTempStore, pointer } from "../__testing__/store-fixtures.js";
import type { Store } from "../api.js";

let home: string;
let store: Store;

let removeTemp: () => Promise<void>;

beforeEach(async () => {
  ({ home, store, remove: removeTemp } = await openTempStore("threads"));
});
afterEach(() => removeTemp());

const threadsDir = () => join(home, "threads");
const fileOf = (id: string) => join(threadsDir(), `${id}.json`);
const mutexDir = () => join(home, "locks", "pointers");

describe("pointer files", () => {
  it("keeps one pointer file per thread, written whole, with no temp or mutex file left", async () => {
    const p = pointer();
    await store.threads.create(p);
    await store.threads.swap({ ...p, head: "0000000000003", steps: 1 }, 1);
    expect(store.threads.locate(p.thread)).toBe(fileOf(p.thread));
    expect(JSON.parse(readFileSync(fileOf(p.thread), "utf8"))).toEqual({
      ...p,
      head: "0000000000003",
      steps: 1,
      rev: 2,
    });
    expect(readdirSync(threadsDir())).toEqual([`${p.thread}.json`]);
    expect(readdirSync(mutexDir())).toEqual([]);
  });

  it("reads a pointer written before revisions as revision 0, and swaps from it", async () => {
    const p = pointer();
    mkdirSync(threadsDir());
    writeFileSync(fileOf(p.thread), JSON.stringify(p));
    expect(await store.threads.get(p.thread)).toEqual({ ...p, rev: 0 });
    expect((await store.threads.list()).items[0]?.pointer).toEqual({ ...p, rev: 0 });
    expect(await store.threads.swap(p, 1)).toBeNull();
    expect(await store.threads.swap({ ...p, steps: 1 }, 0)).toEqual({ ...p, steps: 1, rev: 1 });
  });

  it("names the file and the problem of a corrupt pointer", async () => {
    const p = pointer();
    mkdirSync(threadsDir());
    writeFileSync(fileOf(p.thread), JSON.stringify({ ...p, head: "nope" }));
    const error = await caught(() => store.threads.get(p.thread));
    expect(error.code).toBe("THREAD_CORRUPT");
    expect(error.message).toBe(`${fileOf(p.thread)}: \`head\` is "nope", not a CAS hash`);
  });

  it("lists pointer files only, with a problem instead of a crash for bad ones", async () => {
    const good = await store.threads.create(pointer());
    const empty = pointer().thread;
    writeFileSync(fileOf(empty), "");
    const misnamed = pointer().thread;
    writeFileSync(fileOf(misnamed), JSON.stringify(pointer()));
    writeFileSync(join(threadsDir(), "README.txt"), "not a thread");
    writeFileSync(join(threadsDir(), ".tmp-1-2"), "{");
    writeFileSync(join(threadsDir(), "not-a-ulid.json"), "{");

    const { items } = await store.threads.list();
    expect(items).toHaveLength(3);
    const byId = new Map(items.map((item) => [item.id, item]));
    expect(byId.get(good.thread)).toEqual({
      id: good.thread,
      pointer: good,
      problem: null,
      running: false,
    });
    expect(byId.get(empty)).toEqual({
      id: empty,
      pointer: null,
      problem: "the file is empty",
      running: false,
    });
    expect(byId.get(misnamed)?.problem).toMatch(/^it names thread/);
  });

  it("lists many pointers, one of them larger than the read buffer", async () => {
    const big = pointer({ cwd: `/${"deep/".repeat(5_000)}` });
    await store.threads.create(big);
    const small = [];
    for (let i = 0; i < 200; i++) small.push(await store.threads.create(pointer()));
    const { items } = await store.threads.list();
    expect(items).toHaveLength(201);
    expect(items.every((item) => item.problem === null)).toBe(true);
    const byId = new Map(items.map((item) => [item.id, item.pointer]));
    expect(byId.get(big.thread)).toEqual({ ...big, rev: 1 });
    for (const p of small) expect(byId.get(p.thread)).toEqual(p);
  });

  it("lists nothing when the folder does not exist", async () => {
    expect(await store.threads.list()).toEqual({ items: [], more: false });
  });
});

describe("pointer mutex", () => {
  it("takes over a mutex left by a process that died inside a swap", async () => {
    const p = await store.threads.create(pointer());
    mkdirSync(mutexDir(), { recursive: true });
    writeFileSync(join(mutexDir(), `${p.thread}.lock`), `${deadPid()} 12345 0`);
    expect(await store.threads.swap({ ...p, steps: 1 }, 1)).toMatchObject({ steps: 1, rev: 2 });
    expect(readdirSync(mutexDir())).toEqual([]);
  });

  it("takes over an unreadable mutex once it is older than a write could take", async () => {
    const p = await store.threads.create(pointer());
    mkdirSync(mutexDir(), { recursive: true });
    const mutex = join(mutexDir(), `${p.thread}.lock`);
    writeFileSync(mutex, "");
    const longAgo = new Date(Date.now() - 60_000);
    utimesSync(mutex, longAgo, longAgo);
    expect(await store.threads.swap({ ...p, steps: 1 }, 1)).toMatchObject({ steps: 1, rev: 2 });
  });
});
