import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StepPayload } from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import {
  appendStep,
  openHomeStore,
  seedThread,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { newUlid } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { relay } from "../__fixtures__/workflows.js";
import { usageReport } from "./report.js";

let temp: TempHome;
let store: Store;
beforeEach(async () => {
  temp = tempHome();
  store = await openHomeStore(temp.home);
});
afterEach(async () => {
  await store.close();
  temp.cleanup();
});

const DAY = 86_400_000;
const day = (n: number) => Date.UTC(2026, 0, 1) + n * DAY;
const writer = (n: number) => ({ role: "writer", output: { $status: "written", text: `${n}` } });
const reviewer = { role: "reviewer", output: { $status: "asks", question: "?" } };

/** A: writer (day 1, $1), reviewer (day 3, $2), writer (day 5, cost unknown); B forks A at its
 * second step and runs a writer on day 6 ($4). */
async function family() {
  const { thread: a } = await seedThread(store, {
    workflow: relay,
    prompt: "x",
    cwd: temp.home,
    createdAtMs: day(0),
  });
  await appendStep(store, a, { ...writer(1), usage: { costUsd: 1 }, startedAtMs: day(1) });
  const second = await appendStep(store, a, {
    ...reviewer,
    usage: { costUsd: 2, inputTokens: 10 },
    startedAtMs: day(3),
  });
  await appendStep(store, a, { ...writer(2), startedAtMs: day(5) });
  const pointer = await store.threads.get(a);
  const b = newUlid(day(3) + 1000);
  await store.threads.create({
    ...pointer,
    thread: b,
    head: second,
    steps: 2,
    currentRole: "reviewer",
    forkedFrom: second,
    createdAt: new Date(day(3) + 1000).toISOString(),
    rev: undefined,
  });
  await appendStep(store, b, { ...writer(3), usage: { costUsd: 4 }, startedAtMs: day(6) });
  return { a, b };
}

describe("usageReport", () => {
  it("counts the prefix forks share once, for the thread that ran it", async () => {
    const { a, b } = await family();
    const doc = await usageReport(store, { by: ["thread"] });
    expect(doc.rows.map((r) => [r.key.thread, r.steps, r.costUsd, r.unknownCostSteps])).toEqual([
      [b, 1, 4, 0],
      [a, 3, 3, 1],
    ]);
    expect(doc.total).toMatchObject({ steps: 4, costUsd: 7, unknownCostSteps: 1, inputTokens: 10 });
  });

  it("takes the steps started in [since, until), and leaves a wholly unknown cost null", async () => {
    const { a } = await family();
    const middle = await usageReport(store, { by: ["thread"], sinceMs: day(3), untilMs: day(6) });
    expect(middle.rows.map((r) => [r.key.thread, r.steps, r.costUsd])).toEqual([[a, 2, 2]]);
    const late = await usageReport(store, { by: ["role"], sinceMs: day(4), untilMs: day(6) });
    expect(late.rows).toEqual([
      expect.objectContaining({ key: { role: "writer" }, steps: 1, costUsd: null }),
    ]);
    expect(late.total).toMatchObject({ steps: 1, costUsd: null, unknownCostSteps: 1 });
    expect(late.since).toBe(new Date(day(4)).toISOString());
  });

  it("gives the same answer from its cache, and follows a chain that grew", async () => {
    const { a } = await family();
    const first = await usageReport(store, { by: ["thread", "model"] });
    expect(await usageReport(store, { by: ["thread", "model"] })).toEqual(first);
    await appendStep(store, a, { ...reviewer, usage: { costUsd: 0.5 }, startedAtMs: day(7) });
    const grown = await usageReport(store, { by: ["thread"] });
    expect(grown.rows.find((r) => r.key.thread === a)).toMatchObject({ steps: 4, costUsd: 3.5 });
  });

  it("reads again only the steps a thread added since the last report", async () => {
    const { a, b } = await family();
    const first = await usageReport(store, { by: ["thread", "model"] });
    const reads = countReads(store);
    expect(await usageReport(store, { by: ["thread", "model"] })).toEqual(first);
    expect(reads).toEqual([]);
    const added = await appendStep(store, b, { ...reviewer, startedAtMs: day(8) });
    const { detail } = await store.cas.getPayload<StepPayload>(added, "step");
    reads.length = 0;
    const moved = await usageReport(store, { by: ["thread"] });
    expect(reads.sort()).toEqual([added, detail].sort());
    expect(moved.rows.map((r) => [r.key.thread, r.steps])).toEqual([
      [b, 2],
      [a, 3],
    ]);
  });

  it("keeps one private file of a line per step, and rebuilds it when it is damaged", async () => {
    await family();
    const first = await usageReport(store, { by: ["thread", "role", "model"] });
    const file = join(temp.home, "cache", "usage.jsonl");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(1 + 4);
    writeFileSync(file, '{"format":2}\n["not a step"\n');
    const reads = countReads(store);
    expect(await usageReport(store, { by: ["thread", "role", "model"] })).toEqual(first);
    expect(reads.length).toBeGreaterThan(0);
    expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(1 + 4);
  });
});

/** The hashes `store` reads from its backend from now on. */
function countReads(store: Store): string[] {
  const reads: string[] = [];
  const { backend } = store.cas;
  const read = backend.read.bind(backend);
  backend.read = (hash) => {
    reads.push(hash);
    return read(hash);
  };
  return reads;
}
