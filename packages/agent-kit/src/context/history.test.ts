import type { Cas } from "@united-workforce/store";

import {
  appendStep,
  openHomeStore,
  seedThread,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { planDevReview } from "../__fixtures__/workflows.js";
import { collectHistory, renderHistoryEntry } from "./history.js";

let temp: TempHome;
beforeEach(async () => {
  temp = tempHome();
});
afterEach(() => temp.cleanup());

/** planner, then developer/reviewer rounds: 50 steps, the last a rejection. */
async function longThread(): Promise<{ thread: string; start: string; steps: string[] }> {
  const seeded = await seedThread(temp.home, {
    workflow: planDevReview,
    prompt: "Fix the bug",
    cwd: temp.home,
  });
  const steps = [
    await appendStep(temp.home, seeded.thread, {
      role: "planner",
      output: { $status: "ready", plan: "p" },
      body: "plan body",
    }),
  ];
  for (let round = 1; steps.length < 50; round++) {
    steps.push(
      await appendStep(temp.home, seeded.thread, {
        role: "developer",
        output: { $status: "done", branch: `fix-${round}` },
        body: `developer round ${round}`,
      }),
    );
    steps.push(
      await appendStep(temp.home, seeded.thread, {
        role: "reviewer",
        output: { $status: "rejected", comments: `round ${round}: add tests` },
        body: `review ${round}`,
      }),
    );
  }
  return { thread: seeded.thread, start: seeded.start, steps };
}

/** A Cas whose step reads are counted, to prove the walk stops early. */
async function countingCas(): Promise<{ cas: Cas; stepReads: () => number }> {
  const cas = (await openHomeStore(temp.home)).cas;
  let reads = 0;
  const original = cas.getPayload.bind(cas);
  cas.getPayload = <T>(hash: string, kind?: Parameters<Cas["getPayload"]>[1]): Promise<T> => {
    if (kind === "step") reads++;
    return original<T>(hash, kind);
  };
  return { cas, stepReads: () => reads };
}

describe("collectHistory", () => {
  it("walks back only to the role's previous step in a 50-step chain", async () => {
    const { start, steps } = await longThread();
    const { cas, stepReads } = await countingCas();
    const history = await collectHistory(cas, { head: steps.at(-1)!, start, role: "developer" });
    expect(history.entries.map((e) => [e.hash, e.role, e.own])).toEqual([
      [steps.at(-2), "developer", true],
      [steps.at(-1), "reviewer", false],
    ]);
    expect(history.entries[1]!.output).toEqual({
      $status: "rejected",
      comments: "round 25: add tests",
    });
    expect(history.truncated).toBe(false);
    expect(stepReads()).toBe(2);
  });

  it("returns nothing when the head is the StartNode", async () => {
    const seeded = await seedThread(temp.home, {
      workflow: planDevReview,
      prompt: "x",
      cwd: temp.home,
    });
    const history = await collectHistory((await openHomeStore(temp.home)).cas, {
      head: seeded.start,
      start: seeded.start,
      role: "planner",
    });
    expect(history).toEqual({ entries: [], truncated: false });
  });

  it("stops at the StartNode when the role never ran", async () => {
    const seeded = await seedThread(temp.home, {
      workflow: planDevReview,
      prompt: "x",
      cwd: temp.home,
    });
    const first = await appendStep(temp.home, seeded.thread, {
      role: "planner",
      output: { $status: "ready", plan: "p" },
    });
    const second = await appendStep(temp.home, seeded.thread, {
      role: "developer",
      output: { $status: "done", branch: "b" },
    });
    const history = await collectHistory((await openHomeStore(temp.home)).cas, {
      head: second,
      start: seeded.start,
      role: "reviewer",
    });
    expect(history.entries.map((e) => e.hash)).toEqual([first, second]);
  });

  it("stops when the character quota is used up, and says so", async () => {
    const { start, steps } = await longThread();
    const { cas, stepReads } = await countingCas();
    // planner ran only first: without a quota the walk would read all 50 steps.
    const history = await collectHistory(cas, {
      head: steps.at(-1)!,
      start,
      role: "planner",
      quota: 600,
    });
    expect(history.truncated).toBe(true);
    expect(history.entries.length).toBeGreaterThan(1);
    expect(history.entries.length).toBeLessThan(10);
    expect(history.entries.at(-1)!.hash).toBe(steps.at(-1));
    const used = history.entries.map(renderHistoryEntry).join("").length;
    expect(used).toBeLessThanOrEqual(600);
    expect(stepReads()).toBe(history.entries.length + 1);
  });

  it("keeps the newest step even when it alone exceeds the quota, cutting its body", async () => {
    const seeded = await seedThread(temp.home, {
      workflow: planDevReview,
      prompt: "x",
      cwd: temp.home,
    });
    const head = await appendStep(temp.home, seeded.thread, {
      role: "planner",
      output: { $status: "ready", plan: "p" },
      body: "word ".repeat(400),
    });
    const history = await collectHistory((await openHomeStore(temp.home)).cas, {
      head,
      start: seeded.start,
      role: "developer",
      quota: 300,
    });
    expect(history.entries).toHaveLength(1);
    expect(history.entries[0]!.bodyTruncated).toBe(true);
    expect(renderHistoryEntry(history.entries[0]!).length).toBeLessThanOrEqual(300 + 80);
  });
});
