import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MockScenarioStep } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify as stringifyYaml } from "yaml";
import {
  DRAFT_REVIEW,
  type ExecDoc,
  HELLO,
  mockAgent,
  type Sandbox,
  type ShowDoc,
  sandbox,
  scenario,
  startThread,
  uwf,
  uwfJson,
} from "./fixtures/lifecycle/harness.js";

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

interface TreeDoc {
  thread: string;
  start: string;
  threads: {
    thread: string;
    status: string;
    steps: number;
    head: string;
    forkedFrom: string | null;
    forkStep: number | null;
    forkRole: string | null;
    parent: string | null;
  }[];
}

interface Total {
  steps: number;
  costUsd: number | null;
  unknownCostSteps: number;
  inputTokens: number | null;
}

interface UsageDoc {
  since: string | null;
  until: string | null;
  by: string[];
  rows: (Total & { key: Record<string, string | null> })[];
  total: Total;
}

/** draft-review: a draft, changes asked, a second draft (no cost reported), approved. */
const MAIN: MockScenarioStep[] = [
  {
    role: "writer",
    output: { $status: "drafted", title: "First" },
    usage: { inputTokens: 100, outputTokens: 10, costUsd: 0.1 },
  },
  {
    role: "reviewer",
    output: { $status: "changes", notes: "shorter" },
    usage: { inputTokens: 200, outputTokens: 20, costUsd: 0.2 },
  },
  { role: "writer", output: { $status: "drafted", title: "Second" } },
  { role: "reviewer", output: { $status: "approved" }, usage: { costUsd: 0.05 } },
];

/** The same start, another third step: a fork that parts from MAIN after step 2. */
const OTHER: MockScenarioStep[] = [
  MAIN[0]!,
  MAIN[1]!,
  {
    role: "writer",
    output: { $status: "drafted", title: "Other" },
    usage: { inputTokens: 300, outputTokens: 30, costUsd: 0.3 },
  },
];

async function exec(thread: string, file: string, count: number, more: string[] = []) {
  return uwfJson<ExecDoc>(sb, [
    "thread",
    "exec",
    thread,
    "-c",
    String(count),
    "--agent",
    mockAgent(file),
    ...more,
  ]);
}

async function stepHashes(thread: string): Promise<string[]> {
  const doc = await uwfJson<{ steps: { hash: string }[] }>(sb, ["step", "list", thread]);
  return doc.steps.map((s) => s.hash);
}

async function fork(step: string): Promise<string> {
  return (await uwfJson<{ thread: string }>(sb, ["step", "fork", step])).thread;
}

describe("thread tree and thread diff", () => {
  it("draws a family of forks under the threads they came from, and diffs two of them", async () => {
    const main = scenario(sb, "main", MAIN);
    const other = scenario(sb, "other", OTHER);
    const t = (await startThread(sb, DRAFT_REVIEW, "Write a post")).thread;
    await exec(t, main, 2);
    const [s1, s2] = await stepHashes(t);
    const f1 = await fork(s2!);
    const f2 = await fork(s1!);
    await exec(f1, other, 1);
    await exec(t, main, 2);
    const f1Steps = await stepHashes(f1);
    const f3 = await fork(f1Steps[2]!);
    const unrelated = (await startThread(sb, DRAFT_REVIEW, "Write a post")).thread;

    // Asked from any member, the family is the same.
    const tree = await uwfJson<TreeDoc>(sb, ["thread", "tree", f3]);
    expect(tree.thread).toBe(f3);
    const byId = new Map(tree.threads.map((entry) => [entry.thread, entry]));
    expect([...byId.keys()].sort()).toEqual([t, f1, f2, f3].sort());
    expect(byId.get(t)).toMatchObject({ parent: null, forkedFrom: null, status: "completed" });
    expect(byId.get(f1)).toMatchObject({
      parent: t,
      forkedFrom: s2,
      forkStep: 2,
      forkRole: "reviewer",
      steps: 3,
    });
    expect(byId.get(f2)).toMatchObject({ parent: t, forkStep: 1, forkRole: "writer" });
    expect(byId.get(f3)).toMatchObject({ parent: f1, forkStep: 3, forkRole: "writer" });
    expect(byId.has(unrelated)).toBe(false);

    const text = await uwf(sb, ["thread", "tree", t]);
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      new RegExp(`^${t}  completed  4 steps  head \\S+  “[^”]+”  ← this thread$`),
    );
    expect(lines[1]).toContain(`├─ forked at step 1 ${s1} (writer): ${f2}  idle`);
    expect(lines[2]).toContain(`└─ forked at step 2 ${s2} (reviewer): ${f1}  idle  3 steps`);
    expect(lines[3]).toContain(`   └─ forked at step 3 ${f1Steps[2]} (writer): ${f3}`);

    const diff = await uwfJson<{
      common: string | null;
      commonSteps: number;
      sides: {
        thread: string;
        steps: { number: number; role: string; status: string; output: object }[];
        usage: Total;
      }[];
    }>(sb, ["thread", "diff", t, f1]);
    expect(diff).toMatchObject({ common: s2, commonSteps: 2 });
    expect(diff.sides[0]!.thread).toBe(t);
    expect(diff.sides[0]!.steps.map((s) => [s.number, s.role, s.status])).toEqual([
      [3, "writer", "drafted"],
      [4, "reviewer", "approved"],
    ]);
    expect(diff.sides[0]!.steps[0]!.output).toEqual({ $status: "drafted", title: "Second" });
    expect(diff.sides[0]!.usage).toMatchObject({ steps: 2, costUsd: 0.05, unknownCostSteps: 1 });
    expect(diff.sides[1]!.steps.map((s) => s.output)).toEqual([
      { $status: "drafted", title: "Other" },
    ]);
    expect(diff.sides[1]!.usage).toMatchObject({ steps: 1, costUsd: 0.3, unknownCostSteps: 0 });

    const diffText = await uwf(sb, ["thread", "diff", t, f1]);
    expect(diffText.stdout).toContain("common prefix: 2 steps");
    expect(diffText.stdout).toContain("they part at step 3");
    expect(diffText.stdout).toContain("title: Second");
    expect(diffText.stdout).toContain("title: Other");
    expect(diffText.stdout).toContain("cost ≥ $0.0500 (1 step unknown)");

    // The original removed: its forks still find where they forked, and the oldest survivor
    // holds the shared prefix.
    rmSync(join(sb.home, "threads", `${t}.json`));
    const orphans = await uwfJson<TreeDoc>(sb, ["thread", "tree", f2]);
    const orphan = new Map(orphans.threads.map((entry) => [entry.thread, entry]));
    expect(orphan.get(f1)).toMatchObject({ parent: null, forkStep: 2, forkRole: "reviewer" });
    expect(orphan.get(f2)).toMatchObject({ parent: f1, forkStep: 1 });
    expect(orphan.get(f3)).toMatchObject({ parent: f1, forkStep: 3 });
    expect((await uwf(sb, ["thread", "tree", f2])).stdout).toContain(
      `forked at step 2 ${s2} (reviewer), from a thread no longer here: ${f1}`,
    );

    const refused = await uwf(sb, ["thread", "diff", f1, unrelated, "--format", "json"]);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr).error).toMatchObject({
      code: "THREADS_UNRELATED",
      message: expect.stringContaining("share no step"),
      hint: expect.stringContaining(`uwf thread tree ${f1}`),
    });
  });
});

describe("uwf usage", () => {
  it("counts each step once, by thread, role and model, and never sums an unknown cost as 0", async () => {
    const main = scenario(sb, "main", MAIN);
    const other = scenario(sb, "other", OTHER);
    const t = (await startThread(sb, DRAFT_REVIEW, "Write a post")).thread;
    await exec(t, main, 4);
    const f1 = await fork((await stepHashes(t))[1]!);
    await exec(f1, other, 1);

    // `thread show` reads the pointer only, which counts the steps that reported no cost.
    const shown = await uwfJson<ShowDoc & { unknownCostSteps: number }>(sb, ["thread", "show", t]);
    expect(shown.unknownCostSteps).toBe(1);
    expect(shown.usage.costUsd).toBeCloseTo(0.35);
    expect((await uwf(sb, ["thread", "show", t])).stdout).toMatch(
      /usage\s+300 in \/ 30 out tokens, ≥ \$0\.3500 \(1 step unknown\)/,
    );
    expect(
      (await uwfJson<ShowDoc & { unknownCostSteps: number }>(sb, ["thread", "show", f1]))
        .unknownCostSteps,
    ).toBe(0);
    expect((await uwf(sb, ["thread", "show", f1])).stdout).toMatch(
      /usage\s+300 in \/ 30 out tokens, \$0\.3000\n/,
    );

    const byThread = await uwfJson<UsageDoc>(sb, ["usage", "--by", "thread"]);
    expect(byThread.total).toMatchObject({ steps: 5, unknownCostSteps: 1, inputTokens: 600 });
    expect(byThread.total.costUsd).toBeCloseTo(0.65);
    expect(byThread.rows.map((r) => [r.key.thread, r.steps, r.unknownCostSteps])).toEqual([
      [t, 4, 1],
      [f1, 1, 0],
    ]);

    const byRole = await uwfJson<UsageDoc>(sb, ["usage", "--by", "role,model"]);
    const writer = byRole.rows.find((r) => r.key.role === "writer")!;
    expect(writer.key).toEqual({ role: "writer", model: "mock" });
    expect(writer).toMatchObject({ steps: 3, unknownCostSteps: 1 });

    const text = await uwf(sb, ["usage", "--by", "workflow"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/WORKFLOW\s+STEPS\s+TOKENS\s+COST/);
    expect(text.stdout).toMatch(
      /draft-review\s+5\s+600 in \/ 60 out\s+≥ \$0\.6500 \(1 step unknown\)/,
    );

    // Every step started before a range that begins tomorrow.
    const future = await uwfJson<UsageDoc>(sb, ["usage", "--since", "2999-01-01"]);
    expect(future.total).toMatchObject({ steps: 0, costUsd: null });
    expect((await uwf(sb, ["usage", "--since", "2999-01-01"])).stdout).toContain("no steps");
    const past = await uwfJson<UsageDoc>(sb, ["usage", "--since", "30d", "--until", "2999-01-01"]);
    expect(past.total.steps).toBe(5);

    const bad = await uwf(sb, ["usage", "--by", "colour"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown dimension "colour"');
  });

  it("shows a cost nobody reported as unknown, and stays right as a thread grows", async () => {
    const file = scenario(sb, "hello", [
      { role: "greeter", output: { $status: "done", greeting: "Hi" } },
      { role: "greeter", output: { $status: "done", greeting: "Again" }, usage: { costUsd: 2 } },
    ]);
    const t = (await startThread(sb, HELLO, "Greet Ada")).thread;
    await exec(t, file, 1);
    const doc = await uwfJson<UsageDoc>(sb, ["usage"]);
    expect(doc.total).toMatchObject({ steps: 1, costUsd: null, unknownCostSteps: 1 });
    expect((await uwf(sb, ["usage"])).stdout).toMatch(/1\s+\?\s+unknown/);

    // The report keeps what it read of a chain; the chain grows, the report follows.
    await uwfJson(sb, ["thread", "resume", t, "--agent", mockAgent(file)]);
    const grown = await uwfJson<UsageDoc>(sb, ["usage"]);
    expect(grown.total).toMatchObject({ steps: 2, costUsd: 2, unknownCostSteps: 1 });
    expect((await uwf(sb, ["usage"])).stdout).toContain("≥ $2.00 (1 step unknown)");

    // A damaged cache is ignored, not believed.
    writeFileSync(join(sb.home, "cache", "usage.jsonl"), "{ not json");
    expect((await uwfJson<UsageDoc>(sb, ["usage"])).total).toEqual(grown.total);
  });
});

describe("budgets", () => {
  it("--max-steps suspends before the next step; resume runs it", async () => {
    const main = scenario(sb, "main", MAIN);
    const t = (await startThread(sb, DRAFT_REVIEW, "Write a post")).thread;
    const run = await exec(t, main, 4, ["--max-steps", "2"]);
    expect(run).toMatchObject({ status: "suspended", stoppedBecause: "budget" });
    expect(run.steps).toHaveLength(2);
    expect(run.message).toContain('before role "writer"');
    expect(run.message).toContain("step limit (2 of 2)");
    expect(run.message).toContain(`uwf thread resume ${t}`);
    const show = await uwfJson<ShowDoc>(sb, ["thread", "show", t]);
    expect(show.suspended).toMatchObject({ role: "writer", kind: "budget" });
    expect(show.steps).toBe(2);
    const shown = await uwf(sb, ["thread", "show", t]);
    expect(shown.stdout).toContain(
      "suspended budget before writer: this run reached its step limit",
    );
    expect(shown.stdout).toContain(`to go on: uwf thread resume ${t}`);

    // Exec alone does not pass a budget: a human resumes.
    const again = await exec(t, main, 1);
    expect(again).toMatchObject({ stoppedBecause: "suspended", steps: [] });
    expect(again.message).toContain("budget");

    const resumed = await uwfJson<ExecDoc>(sb, [
      "thread",
      "resume",
      t,
      "-c",
      "5",
      "--agent",
      mockAgent(main),
    ]);
    expect(resumed).toMatchObject({ status: "completed", stoppedBecause: "completed" });
    expect(resumed.steps.map((s) => s.role)).toEqual(["writer", "reviewer"]);
  });

  it("--max-cost counts the run's cost, and a step of unknown cost stops it too", async () => {
    const main = scenario(sb, "main", MAIN);
    const t = (await startThread(sb, DRAFT_REVIEW, "Write a post")).thread;
    const run = await exec(t, main, 4, ["--max-cost", "0.25"]);
    expect(run).toMatchObject({ status: "suspended", stoppedBecause: "budget" });
    expect(run.steps).toHaveLength(2);
    expect(run.message).toContain("cost limit ($0.3000 of $0.2500)");

    // The resumed run has its own budget: one more step, then a human decides again.
    const oneMore = await uwfJson<ExecDoc>(sb, [
      "thread",
      "resume",
      t,
      "-c",
      "5",
      "--max-steps",
      "1",
      "--agent",
      mockAgent(main),
    ]);
    expect([oneMore.stoppedBecause, oneMore.steps.map((s) => s.role)]).toEqual([
      "budget",
      ["writer"],
    ]);
    const resumed = await uwfJson<ExecDoc>(sb, [
      "thread",
      "resume",
      t,
      "-c",
      "5",
      "--agent",
      mockAgent(main),
    ]);
    expect(resumed.status).toBe("completed");

    const unknown = (await startThread(sb, DRAFT_REVIEW, "Write a post")).thread;
    const noCost = scenario(sb, "no-cost", [
      { role: "writer", output: { $status: "drafted", title: "T" } },
      MAIN[1]!,
    ]);
    const stopped = await exec(unknown, noCost, 3, ["--max-cost", "10"]);
    expect(stopped).toMatchObject({ stoppedBecause: "budget" });
    expect(stopped.steps).toHaveLength(1);
    expect(stopped.message).toContain("this run's cost is unknown (1 step reported no cost");

    // A background worker keeps the run's budget.
    const background = (await startThread(sb, DRAFT_REVIEW, "Write a post")).thread;
    const worker = await exec(background, main, 4, ["--max-cost", "0.05", "--background"]);
    expect(worker.stoppedBecause).toBe("background");
    const joined = await uwfJson<{ status: string }>(sb, ["thread", "join", background]);
    expect(joined.status).toBe("suspended");
    const shown = await uwfJson<ShowDoc>(sb, ["thread", "show", background]);
    expect(shown).toMatchObject({ steps: 1, suspended: { kind: "budget", role: "reviewer" } });

    const bad = await uwf(sb, ["thread", "exec", unknown, "--max-cost", "lots"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("is not an amount of US dollars");
  });

  it("limits.<workflow> in config.yaml bounds every run of that workflow", async () => {
    const main = scenario(sb, "main", MAIN);
    writeFileSync(
      join(sb.home, "config.yaml"),
      stringifyYaml({ limits: { "draft-review": { maxSteps: 1 } } }),
      { mode: 0o600 },
    );
    const t = (await startThread(sb, DRAFT_REVIEW, "Write a post")).thread;
    const run = await exec(t, main, 3);
    expect(run).toMatchObject({ stoppedBecause: "budget" });
    expect(run.steps).toHaveLength(1);
    // A resumed run counts afresh under the same limit.
    const more = await uwfJson<ExecDoc>(sb, [
      "thread",
      "resume",
      t,
      "-c",
      "3",
      "--agent",
      mockAgent(main),
    ]);
    expect(more.steps).toHaveLength(1);
    expect(more.stoppedBecause).toBe("budget");
    // A flag replaces the configured limit for its run.
    const other = (await startThread(sb, DRAFT_REVIEW, "Write a post")).thread;
    const flagged = await exec(other, main, 3, ["--max-steps", "2"]);
    expect([flagged.stoppedBecause, flagged.steps.length]).toEqual(["budget", 2]);

    writeFileSync(
      join(sb.home, "config.yaml"),
      stringifyYaml({ limits: { "draft-review": { maxSteps: 0 } } }),
      { mode: 0o600 },
    );
    const fresh = (await startThread(sb, DRAFT_REVIEW, "Write a post")).thread;
    const invalid = await uwf(sb, ["thread", "exec", fresh, "--agent", mockAgent(main)]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain("limits.draft-review.maxSteps");
  });
});
