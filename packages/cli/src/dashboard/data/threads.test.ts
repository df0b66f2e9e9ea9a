import type { Runner } from "@united-workforce/engine";
import type { SuspendInfo, ThreadPointer } from "@united-workforce/protocol";
import { openStore, type Store } from "@united-workforce/store";
import { tempHome } from "@united-workforce/test-utils";
import { newUlid } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listThreads, parseFilter, waitingForAPerson } from "./threads.js";
import { WaitingIndex } from "./waiting-index.js";

describe("the thread list's data", () => {
  let temp: ReturnType<typeof tempHome>;
  let store: Store;
  let runner: Runner;
  let at = Date.parse("2026-01-01T00:00:00Z");

  const thread = async (
    title: string | undefined,
    suspended: SuspendInfo | null = null,
  ): Promise<string> => {
    at += 1000;
    const time = new Date(at).toISOString();
    const pointer: ThreadPointer = {
      thread: newUlid(at),
      workflow: "w",
      workflowHash: "0000000000009",
      start: "0000000000001",
      head: "0000000000001",
      status: suspended === null ? "idle" : "suspended",
      currentRole: null,
      suspended,
      steps: 0,
      cwd: "/",
      createdAt: time,
      updatedAt: time,
      ...(title === undefined ? {} : { title }),
    };
    await store.threads.create(pointer);
    return pointer.thread;
  };
  const filter = (query: string) => parseFilter(new URLSearchParams(query));
  const waitingOn = (kind: SuspendInfo["kind"]): SuspendInfo => ({
    role: "approver",
    reason: `waits (${kind})`,
    kind,
  });

  beforeEach(async () => {
    temp = tempHome();
    store = await openStore({ home: temp.home });
    // The list reads only the store: no run starts here.
    runner = { store } as unknown as Runner;
  });

  afterEach(async () => {
    await store.close();
    temp.cleanup();
  });

  it("shows each thread's title and filters by its words (?title=), case aside", async () => {
    const release = await thread("Announce the 2.0 release");
    await thread("Fix the login page");
    const untitled = await thread(undefined);
    const all = await listThreads(runner, filter(""));
    expect(all.rows.map((r) => r.title)).toEqual([
      null,
      "Fix the login page",
      "Announce the 2.0 release",
    ]);
    const byTitle = await listThreads(runner, filter("title=2.0+ANNOUNCE"));
    expect(byTitle.rows.map((r) => r.thread)).toEqual([release]);
    expect(byTitle.more).toBe(false);
    // The text filter reads titles too; a title filter keeps no untitled thread.
    expect((await listThreads(runner, filter("q=login"))).rows).toHaveLength(1);
    expect(
      (await listThreads(runner, filter("title=the"))).rows.map((r) => r.thread),
    ).not.toContain(untitled);
  });

  it("puts apart the threads only a person moves on: a human role, a question, a failure", async () => {
    const human = await thread("Gate", waitingOn("human"));
    const question = await thread("Asks", waitingOn("question"));
    await thread("Retries by itself", waitingOn("retry"));
    await thread("Waits on children", waitingOn("fanout"));
    const failed = await thread("Failed", waitingOn("failure"));
    await thread("Idle");
    const index = new WaitingIndex(runner);
    const waiting = waitingForAPerson(await index.rows(), filter(""));
    expect(waiting.map((r) => [r.thread, r.waitKind])).toEqual([
      [failed, "failure"],
      [question, "question"],
      [human, "human"],
    ]);
    // Kept from the rows the live feed reads: one that no longer waits leaves.
    const [answered] = (await listThreads(runner, filter(`q=${human}`))).rows;
    index.update({ ...answered!, status: "idle", waitKind: null, waitsForAPerson: false });
    expect((await index.rows()).map((r) => r.thread)).toEqual([failed, question]);
    expect(waitingForAPerson(waiting, filter("title=gate")).map((r) => r.thread)).toEqual([human]);
    expect(waitingForAPerson(waiting, filter("status=idle"))).toEqual([]);
  });
});
