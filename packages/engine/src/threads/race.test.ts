import { emptyUsage, type ThreadPointer } from "@united-workforce/protocol";
import { openStore, type Store } from "@united-workforce/store";
import { appendStep, seedThread, type TempHome, tempHome } from "@united-workforce/test-utils";
import { newUlid } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { relay } from "../__fixtures__/workflows.js";
import { promoteFork, racesOf, recordRace } from "./race.js";

let temp: TempHome;
let store: Store;
beforeEach(async () => {
  temp = tempHome();
  store = await openStore({ home: temp.home, host: "this-host" });
});
afterEach(async () => {
  await store.close();
  temp.cleanup();
});

/** A thread, raced at its head by two forks, each of which wrote one step. */
async function racedThread() {
  const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
  const original = await store.threads.get(thread);
  const race = newUlid();
  await recordRace(store, thread, { id: race, at: original.head, head: original.head });
  const forks: ThreadPointer[] = [];
  for (const [agent, text, costUsd] of [
    ["a", "Short.", 0.01],
    ["b", "Longer.", 0.04],
  ] as const) {
    const fork: ThreadPointer = {
      ...original,
      thread: newUlid(),
      race: { id: race, of: thread, at: original.head, agent },
      agent,
      // What the exec of its step would have summed (appendStep moves the head only).
      usage: { ...emptyUsage(), costUsd },
      rev: 0,
    };
    // A fork is no raced thread itself.
    delete fork.races;
    await store.threads.create(fork);
    await appendStep(store, fork.thread, { role: "writer", output: { $status: "written", text } });
    forks.push(await store.threads.get(fork.thread));
  }
  return { thread, race, at: original.head, forks: forks as [ThreadPointer, ThreadPointer] };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: { code?: string; message?: string }) => `${error.code}: ${error.message}`,
  );
const keepNothing = async () => {
  throw new Error("nothing to keep");
};

describe("races", () => {
  it("lists a thread's race with its forks, oldest first", async () => {
    const { thread, race, at, forks } = await racedThread();
    const [listed] = await racesOf(store, await store.threads.get(thread));
    expect(listed?.raced).toEqual({ id: race, at, head: at });
    expect(listed?.forks.map((f) => f.thread)).toEqual(forks.map((f) => f.thread));
  });

  it("promotes a fork: the thread takes its head and usage, forks marked won and lost", async () => {
    const { thread, race, at, forks } = await racedThread();
    const { pointer, promotion } = await promoteFork(store, forks[1].thread, keepNothing);
    expect(promotion).toEqual({ race, fork: forks[1].thread, head: at });
    expect(pointer).toMatchObject({
      thread,
      head: forks[1].head,
      steps: 1,
      currentRole: "writer",
      promotedFrom: promotion,
    });
    expect(pointer.usage?.costUsd).toBe(0.04);
    expect((await store.threads.get(forks[0].thread)).race?.outcome).toBe("lost");
    expect((await store.threads.get(forks[1].thread)).race?.outcome).toBe("won");
  });

  it("refuses, writing nothing, a thread that moved on, a plain thread and a fork with no step", async () => {
    const { thread, forks } = await racedThread();
    await appendStep(store, thread, { role: "writer", output: { $status: "written", text: "x" } });
    const moved = await store.threads.get(thread);
    expect(await refusal(promoteFork(store, forks[0].thread, keepNothing))).toMatch(
      /^RACE_NOT_PROMOTABLE: thread \S+ moved on since race/,
    );
    expect(await store.threads.get(thread)).toEqual(moved);
    expect((await store.threads.get(forks[0].thread)).race?.outcome).toBeUndefined();
    expect(await refusal(promoteFork(store, thread, keepNothing))).toBe(
      `RACE_NOT_PROMOTABLE: thread ${thread} is no fork of a race`,
    );
    const idle: ThreadPointer = { ...forks[0], thread: newUlid(), head: forks[0].race!.at, rev: 0 };
    await store.threads.create(idle);
    expect(await refusal(promoteFork(store, idle.thread, keepNothing))).toMatch(/stored no step/);
  });

  it("refuses a race of a thread whose head moved before it was recorded", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    const { head } = await store.threads.get(thread);
    await appendStep(store, thread, { role: "writer", output: { $status: "written", text: "x" } });
    expect(await refusal(recordRace(store, thread, { id: newUlid(), at: head, head }))).toMatch(
      /^THREAD_CONFLICT: thread \S+ moved on while the race began/,
    );
  });
});
