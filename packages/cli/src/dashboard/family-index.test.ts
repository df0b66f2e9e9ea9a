import type { ThreadPointer } from "@united-workforce/protocol";
import { openStore, type Store } from "@united-workforce/store";
import { tempHome } from "@united-workforce/test-utils";
import { newUlid } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FamilyIndex } from "./family-index.js";

const START_A = "0000000000001";
const START_B = "0000000000002";

describe("FamilyIndex", () => {
  let temp: ReturnType<typeof tempHome>;
  let store: Store;
  let at = Date.parse("2026-01-01T00:00:00Z");

  const thread = async (start: string): Promise<string> => {
    at += 1000;
    const time = new Date(at).toISOString();
    const pointer: ThreadPointer = {
      thread: newUlid(at),
      workflow: "w",
      workflowHash: "0000000000009",
      start,
      head: start,
      status: "idle",
      currentRole: null,
      suspended: null,
      steps: 0,
      cwd: "/",
      createdAt: time,
      updatedAt: time,
    };
    await store.threads.create(pointer);
    return pointer.thread;
  };
  const ids = async (index: FamilyIndex, start: string) =>
    (await index.store().threads.list({ start })).items.map((i) => i.id);

  beforeEach(async () => {
    temp = tempHome();
    store = await openStore({ home: temp.home });
  });
  afterEach(async () => {
    await store.close();
    temp.cleanup();
  });

  it("answers a family query as the store does, from one read of every pointer", async () => {
    const a1 = await thread(START_A);
    await thread(START_B);
    const a2 = await thread(START_A);
    const index = new FamilyIndex(store);
    const direct = (await store.threads.list({ start: START_A })).items.map((i) => i.id);
    expect(await ids(index, START_A)).toEqual(direct);
    expect(direct.sort()).toEqual([a1, a2].sort());
    // Any other query goes to the store unchanged.
    expect((await index.store().threads.list({})).items).toHaveLength(3);
  });

  it("sees a new family member once the log says a thread was made", async () => {
    await thread(START_A);
    const index = new FamilyIndex(store);
    expect(await ids(index, START_A)).toHaveLength(1);
    const fork = await thread(START_A);
    expect(await ids(index, START_A)).toHaveLength(1);
    index.invalidate();
    expect(await ids(index, START_A)).toContain(fork);
  });

  it("reads each member's pointer afresh, so statuses are current", async () => {
    const id = await thread(START_A);
    const index = new FamilyIndex(store);
    await ids(index, START_A);
    const pointer = await store.threads.get(id);
    await store.threads.swap({ ...pointer, status: "completed" }, pointer.rev ?? 0);
    const [item] = (await index.family(START_A)).items;
    expect(item!.pointer!.status).toBe("completed");
  });
});
