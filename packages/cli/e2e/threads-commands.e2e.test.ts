import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ThreadPointer } from "@united-workforce/protocol";
import { openHomeStore, seedThread, type WorkflowFixture } from "@united-workforce/test-utils";
import { newUlid } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import {
  DRAFT_REVIEW,
  type ExecDoc,
  HELLO,
  mockAgent,
  type Sandbox,
  type StepListDoc,
  sandbox,
  scenario,
  showStep,
  startThread,
  uwf,
  uwfJson,
} from "./fixtures/lifecycle/harness.js";

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

interface ListDoc {
  threads: {
    thread: string;
    workflow: string;
    status: string;
    currentRole: string | null;
    createdAt: string;
    updatedAt: string;
    problem?: string;
  }[];
  more: boolean;
  total?: number;
}

function oneRoleWorkflow(name: string): WorkflowFixture {
  return {
    name,
    roles: {
      solo: {
        frontmatter: {
          type: "object",
          properties: { $status: { const: "done" } },
          required: ["$status"],
        },
      },
    },
    graph: {
      $START: { new: { role: "solo", prompt: "Go." }, resume: { role: "solo", prompt: "Again." } },
      solo: { done: { role: "$END", prompt: "Done." } },
    },
  };
}

describe("thread list", () => {
  /** Threads of two workflows, made at different times, in every stored status, plus a corrupt one. */
  async function seedThreads() {
    const now = Date.now();
    const { threads } = await openHomeStore(sb.home);
    const seed = async (workflow: string, ageMs: number, change: Partial<ThreadPointer> = {}) => {
      const { thread } = await seedThread(sb.home, {
        workflow: oneRoleWorkflow(workflow),
        prompt: "Go",
        cwd: sb.work,
        createdAtMs: now - ageMs,
      });
      const pointer = await threads.get(thread);
      await threads.swap({ ...pointer, ...change }, pointer.rev ?? 0);
      return thread;
    };
    const completed = await seed("alpha", 10 * DAY, { status: "completed", currentRole: "solo" });
    const suspended = await seed("alpha", 2 * DAY, {
      status: "suspended",
      suspended: { role: "solo", reason: "Which one?", kind: "question" },
    });
    const idle = await seed("beta", 3 * HOUR);
    const cancelled = await seed("beta", 20 * MINUTE);
    expect((await uwf(sb, ["thread", "cancel", cancelled])).code).toBe(0);
    const corrupt = newUlid(now - MINUTE);
    writeFileSync(join(sb.home, "threads", `${corrupt}.json`), "garbage\n{ not: json");
    return { now, completed, suspended, idle, cancelled, corrupt };
  }

  const ids = (doc: ListDoc) => doc.threads.map((t) => t.thread);

  it("lists every thread newest first, a corrupt one as corrupt, suspended ones by default", async () => {
    const t = await seedThreads();
    const doc = await uwfJson<ListDoc>(sb, ["thread", "list"]);
    expect(ids(doc)).toEqual([t.corrupt, t.cancelled, t.idle, t.suspended, t.completed]);
    expect(doc.total).toBe(5);
    expect(doc.threads.map((x) => x.status)).toEqual([
      "corrupt",
      "cancelled",
      "idle",
      "suspended",
      "completed",
    ]);
    expect(doc.threads[0]!.problem).toMatch(/not JSON/);
    expect(doc.threads[1]).toMatchObject({ workflow: "beta", currentRole: null });

    const text = await uwf(sb, ["thread", "list"]);
    expect(text.code).toBe(0);
    const rows = text.stdout.trimEnd().split("\n");
    expect(rows).toHaveLength(5);
    expect(rows[0]).toMatch(new RegExp(`^${t.corrupt}\\s+corrupt\\s.*not JSON`));
    expect(rows[3]).toMatch(new RegExp(`^${t.suspended}\\s+suspended\\s+alpha`));
  });

  it("filters by status, workflow and creation time", async () => {
    const t = await seedThreads();
    const list = async (...args: string[]) =>
      ids(await uwfJson<ListDoc>(sb, ["thread", "list", ...args]));

    expect(await list("--status", "suspended")).toEqual([t.suspended]);
    expect(await list("--status", "active")).toEqual([t.idle, t.suspended]);
    expect(await list("--status", "idle")).toEqual([t.idle]);
    expect(await list("--status", "completed")).toEqual([t.completed]);
    expect(await list("--status", "cancelled")).toEqual([t.cancelled]);
    expect(await list("--status", "corrupt")).toEqual([t.corrupt]);
    expect(await list("--workflow", "alpha")).toEqual([t.suspended, t.completed]);
    expect(await list("--workflow", "beta", "--status", "active")).toEqual([t.idle]);

    expect(await list("--after", "7d")).toEqual([t.corrupt, t.cancelled, t.idle, t.suspended]);
    expect(await list("--after", "24h")).toEqual([t.corrupt, t.cancelled, t.idle]);
    expect(await list("--after", "30m")).toEqual([t.corrupt, t.cancelled]);
    expect(await list("--before", "24h")).toEqual([t.suspended, t.completed]);
    const iso = (ms: number) => new Date(ms).toISOString();
    expect(await list("--after", iso(t.now - 3 * DAY), "--before", iso(t.now - HOUR))).toEqual([
      t.idle,
      t.suspended,
    ]);

    const bad = await uwf(sb, ["thread", "list", "--after", "last week"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--after must be an ISO time or an age like 7d, 24h, 30m, got "last week"',
    );
  });

  it("pages with --limit and --offset, saying whether more match; --count counts them", async () => {
    const t = await seedThreads();
    const page = (...args: string[]) => uwfJson<ListDoc>(sb, ["thread", "list", ...args]);

    const first = await page("--limit", "2");
    expect(first).toEqual({ threads: expect.any(Array), more: true });
    expect(ids(first)).toEqual([t.corrupt, t.cancelled]);
    const counted = await page("--limit", "2", "--count");
    expect([ids(counted), counted.more, counted.total]).toEqual([ids(first), true, 5]);
    // A last page knows the total without counting.
    const last = await page("--limit", "2", "--offset", "3");
    expect([ids(last), last.more, last.total]).toEqual([[t.suspended, t.completed], false, 5]);
    const filtered = await page("--status", "active", "--limit", "1", "--offset", "1");
    expect([ids(filtered), filtered.more, filtered.total]).toEqual([[t.suspended], false, 2]);
    const past = await page("--offset", "10");
    expect(past).toEqual({ threads: [], more: false });

    const text = await uwf(sb, ["thread", "list", "--limit", "2"]);
    expect(text.stdout).toContain("(2 shown, more match; use --limit/--offset for more)");
    const countedText = await uwf(sb, ["thread", "list", "--limit", "2", "--count"]);
    expect(countedText.stdout).toContain("(2 of 5; use --limit/--offset for more)");
    const empty = await uwf(sb, ["thread", "list", "--offset", "10", "--count"]);
    expect(empty.stdout.trim()).toBe("no threads on this page (5 in all)");
  });
});

describe("thread read and step read", () => {
  const bodies = [
    "Draft one. ".repeat(20),
    "Cut it. ".repeat(20),
    "Draft two. ".repeat(20),
    "Fine.",
  ];

  async function fourSteps() {
    const file = scenario(sb, "draft", [
      { role: "writer", output: { $status: "drafted", title: "First" }, body: bodies[0] },
      { role: "reviewer", output: { $status: "changes", notes: "Shorter." }, body: bodies[1] },
      { role: "writer", output: { $status: "drafted", title: "Second" }, body: bodies[2] },
      { role: "reviewer", output: { $status: "approved" }, body: bodies[3] },
    ]);
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Write a release note for v2");
    const run = await uwfJson<ExecDoc>(sb, [
      "thread",
      "exec",
      thread,
      "-c",
      "4",
      "--agent",
      mockAgent(file),
    ]);
    return { thread, hashes: run.steps.map((s) => s.hash) };
  }

  const shownSteps = (markdown: string) =>
    [...markdown.matchAll(/<!-- step ([0-9A-Z]{13}) /g)].map((m) => m[1]!);

  it("prints the task and every step in order", async () => {
    const { thread, hashes } = await fourSteps();
    const read = await uwf(sb, ["thread", "read", thread]);
    expect(read.code).toBe(0);
    const md = read.stdout;
    expect(md).toContain(`# Thread ${thread} · draft-review · completed`);
    expect(md).toContain("## Task\n\nWrite a release note for v2");
    expect(shownSteps(md)).toEqual(hashes);
    const headings = [
      "## Task",
      "## Step 1 · writer → drafted",
      "## Step 2 · reviewer → changes",
      "## Step 3 · writer → drafted",
      "## Step 4 · reviewer → approved",
    ].map((h) => md.indexOf(h));
    expect(headings.every((at) => at >= 0)).toBe(true);
    expect(headings).toEqual([...headings].sort((a, b) => a - b));
    expect(md).toContain("> Revise the draft: Shorter.");
    expect(md).toContain(bodies[2]!.trim());
  });

  it("cuts at --quota, says how to page back, and --before pages to the start", async () => {
    const { thread, hashes } = await fourSteps();
    const quota = "450";
    const pages: string[][] = [];
    let args = ["thread", "read", thread, "--quota", quota];
    for (let page = 0; page < 10; page++) {
      const read = await uwf(sb, args);
      expect(read.code).toBe(0);
      const steps = shownSteps(read.stdout);
      expect(steps.length).toBeGreaterThan(0);
      // Every page numbers its steps from the start, as the first does.
      const numbers = [...read.stdout.matchAll(/^## Step (\d+) · /gm)].map((m) => Number(m[1]));
      expect(numbers).toEqual(steps.map((hash) => hashes.indexOf(hash) + 1));
      pages.unshift(steps);
      const next = /_Earlier steps not shown: uwf (thread read \S+ --before \S+)_/.exec(
        read.stdout,
      );
      if (!next) {
        expect(read.stdout).toContain("## Task");
        break;
      }
      expect(read.stdout).not.toContain("## Task");
      expect(next[1]).toBe(`thread read ${thread} --before ${steps[0]}`);
      args = [...next[1]!.split(" "), "--quota", quota];
    }
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.flat()).toEqual(hashes);

    const doc = await uwfJson<{ more: boolean; oldestShown: string }>(sb, [
      "thread",
      "read",
      thread,
      "--quota",
      quota,
    ]);
    expect(doc.more).toBe(true);
    expect(doc.oldestShown).toBe(pages.at(-1)![0]);
  });

  it("pages back without reading the steps after the page: the last page told it the number", async () => {
    const { thread, hashes } = await fourSteps();
    // One step a page: the page before the second step prints `--before <second step>`.
    let args = ["thread", "read", thread, "--quota", "1"];
    const outputs = new Map<string, string>();
    for (let page = 0; page < hashes.length; page++) {
      const read = await uwf(sb, args);
      expect(read.code, read.stderr).toBe(0);
      const before = args[args.indexOf("--before") + 1];
      if (args.includes("--before")) outputs.set(before!, read.stdout);
      const next = /--before (\S+)_/.exec(read.stdout)?.[1];
      if (next === undefined) break;
      args = ["thread", "read", thread, "--before", next, "--quota", "1"];
    }
    const second = hashes[1]!;
    expect(outputs.get(second)).toContain("## Step 1 · ");
    // The third step gone from the store: a walk back from the head to the second one, to
    // number its page, would fail on it. The page does not walk.
    const third = hashes[2]!;
    rmSync(join(sb.home, "cas", third.slice(0, 2), `${third}.json`));
    const again = await uwf(sb, ["thread", "read", thread, "--before", second, "--quota", "1"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(outputs.get(second));
  });

  it("reads from the start with --start, and says when later steps are left out", async () => {
    const { thread, hashes } = await fourSteps();
    const all = await uwf(sb, ["thread", "read", thread, "--start"]);
    expect(shownSteps(all.stdout)).toEqual(hashes);
    const cut = await uwf(sb, ["thread", "read", thread, "--start", "--quota", "450"]);
    expect(cut.code).toBe(0);
    const shown = shownSteps(cut.stdout);
    expect(shown).toEqual(hashes.slice(0, shown.length));
    expect(shown.length).toBeLessThan(hashes.length);
    expect(cut.stdout.indexOf("## Task")).toBeLessThan(cut.stdout.indexOf("## Step 1 · writer"));
    const left = hashes.length - shown.length;
    expect(cut.stdout).toContain(`_${left} later step${left === 1 ? "" : "s"} not shown`);
  });

  it("notes how many attempts a step took when its output needed repairs", async () => {
    const file = scenario(sb, "repaired", [
      {
        role: "writer",
        body: "Draft.",
        attempts: ["No frontmatter.", { $status: "drafted", title: "First" }],
      },
    ]);
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Write a release note");
    const run = await uwfJson<ExecDoc>(sb, ["thread", "exec", thread, "--agent", mockAgent(file)]);
    const facts = new RegExp(
      `<!-- step ${run.steps[0]!.hash} · agent uwf-mock · .* · 2 attempts -->`,
    );
    expect((await uwf(sb, ["thread", "read", thread])).stdout).toMatch(facts);
    expect((await uwf(sb, ["step", "read", run.steps[0]!.hash])).stdout).toMatch(facts);
  });

  it("prints the exact prompt an agent received with step read --prompt", async () => {
    const { hashes } = await fourSteps();
    const step = await showStep(sb, hashes[1]!);
    const read = await uwf(sb, ["step", "read", hashes[1]!, "--prompt"]);
    expect(read.code).toBe(0);
    const stored = await uwfJson<{ payload: string }>(sb, ["cas", "get", step.assembledPrompt]);
    expect(read.stdout).toBe(
      stored.payload.endsWith("\n") ? stored.payload : `${stored.payload}\n`,
    );

    const prompt = read.stdout;
    expect(prompt).toContain("### When `$status: approved`");
    expect(prompt).toContain("### When `$status: changes`");
    expect(prompt).toContain("Focus exclusively on YOUR role's deliverable.");
    expect(prompt).toContain("## Task\n\nWrite a release note for v2");
    expect(prompt.trimEnd().endsWith("## Moderator Instruction\n\nReview the draft First.")).toBe(
      true,
    );

    const markdown = await uwf(sb, ["step", "read", hashes[1]!]);
    expect(markdown.stdout).toContain("## reviewer → changes");
    expect(markdown.stdout).toContain("notes: Shorter.");
    expect(markdown.stdout).toContain(bodies[1]!.trim());
  });
});

describe("--format json and yaml documents", () => {
  it("keeps the DESIGN §13 keys for thread start/show/exec/list and step list/fork", async () => {
    const file = scenario(sb, "hello", [
      {
        role: "greeter",
        output: { $status: "done", greeting: "Hi" },
        usage: { inputTokens: 12, outputTokens: 3, costUsd: 0.5 },
      },
    ]);
    const start = await uwfJson(sb, ["thread", "start", HELLO, "-p", "Greet Ada"]);
    expect(Object.keys(start)).toEqual(
      expect.arrayContaining(["thread", "workflow", "head", "status"]),
    );
    expect(start).toMatchObject({ workflow: "hello", status: "idle" });
    const thread = String(start.thread);

    const exec = await uwfJson<ExecDoc>(sb, ["thread", "exec", thread, "--agent", mockAgent(file)]);
    expect(Object.keys(exec)).toEqual(
      expect.arrayContaining(["thread", "status", "stoppedBecause", "steps"]),
    );
    expect(exec.steps[0]).toEqual(
      expect.objectContaining({ hash: expect.any(String), role: "greeter", status: "done" }),
    );

    const show = await uwfJson(sb, ["thread", "show", thread]);
    expect(Object.keys(show)).toEqual(
      expect.arrayContaining([
        "thread",
        "workflow",
        "head",
        "status",
        "currentRole",
        "suspended",
        "steps",
        "usage",
      ]),
    );
    expect(show).toMatchObject({
      thread,
      workflow: "hello",
      status: "completed",
      currentRole: "greeter",
      suspended: null,
      steps: 1,
      usage: { inputTokens: 12, outputTokens: 3, costUsd: 0.5, cacheReadTokens: null },
    });

    const list = await uwfJson<ListDoc>(sb, ["thread", "list"]);
    expect(list.total).toBe(1);
    expect(Object.keys(list.threads[0]!)).toEqual(
      expect.arrayContaining([
        "thread",
        "workflow",
        "status",
        "currentRole",
        "createdAt",
        "updatedAt",
      ]),
    );
    expect(list.threads[0]!.createdAt).toMatch(ISO_UTC);
    expect(list.threads[0]!.updatedAt).toMatch(ISO_UTC);

    const steps = await uwfJson<StepListDoc>(sb, ["step", "list", thread]);
    expect(steps).toMatchObject({ thread, workflow: "hello" });
    expect(steps.steps).toHaveLength(1);
    expect(Object.keys(steps.steps[0]!)).toEqual(
      expect.arrayContaining([
        "hash",
        "role",
        "status",
        "agent",
        "startedAt",
        "durationMs",
        "usage",
      ]),
    );
    expect(steps.steps[0]!.startedAt).toMatch(ISO_UTC);
    expect(steps.steps[0]!.durationMs).toEqual(expect.any(Number));
    expect(steps.steps[0]!.usage).toMatchObject({ inputTokens: 12, outputTokens: 3 });

    const fork = await uwfJson(sb, ["step", "fork", exec.steps[0]!.hash]);
    expect(fork).toEqual({
      thread: expect.stringMatching(/^[0-9A-Z]{26}$/),
      forkedFrom: exec.steps[0]!.hash,
    });

    // YAML is the same document.
    for (const args of [
      ["thread", "show", thread],
      ["thread", "list"],
      ["step", "list", thread],
    ]) {
      const yaml = await uwf(sb, [...args, "--format", "yaml"]);
      expect(yaml.code).toBe(0);
      expect(parseYaml(yaml.stdout)).toEqual(await uwfJson(sb, args));
    }
    const started = await uwf(sb, [
      "thread",
      "start",
      HELLO,
      "-p",
      "Greet Bob",
      "--format",
      "yaml",
    ]);
    expect(parseYaml(started.stdout)).toMatchObject({ workflow: "hello", status: "idle" });
  });
});

describe("errors", () => {
  it("exits 2 on usage errors and says what to do", async () => {
    const { thread } = await startThread(sb, HELLO, "Greet");
    const zero = await uwf(sb, ["thread", "exec", thread, "-c", "0"]);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('error: --count must be a whole number ≥ 1, got "0"');
    expect(zero.stderr).toContain("hint:");

    const unknown = await uwf(sb, ["thread", "exec", thread, "--bogus"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--bogus'");
    expect(unknown.stderr).toContain("hint:");

    const noPrompt = await uwf(sb, ["thread", "start", HELLO]);
    expect(noPrompt.code).toBe(2);
    expect(noPrompt.stderr).toContain("--prompt is required");
    expect(noPrompt.stdout).toBe("");
    expect((await uwfJson<ListDoc>(sb, ["thread", "list"])).total).toBe(1);
  });

  it("exits 1 with a hint for a thread or step that does not exist", async () => {
    const { head } = await startThread(sb, HELLO, "Greet");
    const missing = newUlid();
    for (const args of [
      ["thread", "show", missing],
      ["thread", "exec", missing],
      ["thread", "resume", missing, "-p", "x"],
      ["thread", "cancel", missing],
      ["thread", "read", missing],
      ["step", "list", missing],
    ]) {
      const result = await uwf(sb, args);
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr).toContain(`error: no thread ${missing}`);
      expect(result.stderr).toContain("hint: `uwf thread list` shows the threads");
    }
    // The StartNode's hash (printed by `thread start`) is not a step.
    const notStep = await uwf(sb, ["step", "show", head]);
    expect(notStep.code).toBe(1);
    expect(notStep.stderr).toContain(`no step ${head}`);
    expect(notStep.stderr).toContain("hint: `uwf step list <thread>`");
    const noNode = await uwf(sb, ["step", "read", "0000000000000"]);
    expect(noNode.code).toBe(1);
    expect(noNode.stderr).toContain("hint: `uwf step list <thread>`");
  });

  it("refuses a malformed thread id with exit 2 before touching any path", async () => {
    await startThread(sb, HELLO, "Greet");
    // What `threads/../evil.json` would name, were the id used as a path.
    const bait = join(sb.home, "evil.json");
    const baitText = '{"thread":"../evil","status":"idle"}\n';
    writeFileSync(bait, baitText);
    const before = readdirSync(sb.home).sort();
    for (const args of [
      ["thread", "show", "../evil"],
      ["thread", "exec", "../evil"],
      ["thread", "cancel", "../evil"],
      ["thread", "stop", "../evil"],
      ["thread", "resume", "../evil", "-p", "x"],
      ["thread", "poke", "../evil", "-p", "x"],
      ["thread", "join", "../evil"],
      ["step", "list", "../evil"],
      ["thread", "show", "01a"],
    ]) {
      const result = await uwf(sb, args);
      expect(result.code, args.join(" ")).toBe(2);
      // `[thread]` where the id is optional (`thread exec --next` claims one).
      expect(result.stderr).toMatch(/[<[]thread[>\]] must be a thread id/);
      expect(result.stderr).toContain("hint:");
    }
    expect(readFileSync(bait, "utf8")).toBe(baitText);
    expect(readdirSync(sb.home).sort()).toEqual(before);
  });

  it("writes errors as {error: {code, message, hint}} on stderr in json mode", async () => {
    const { thread } = await startThread(sb, HELLO, "Greet");
    const cases: [string[], number, string][] = [
      [["thread", "exec", thread, "-c", "0"], 2, "USAGE"],
      [["thread", "exec", thread, "--bogus"], 2, "USAGE"],
      [["thread", "show", newUlid()], 1, "THREAD_NOT_FOUND"],
      [["thread", "show", "../evil"], 2, "USAGE"],
      [["thread", "resume", thread, "-p", "x"], 1, "THREAD_STATE"],
    ];
    for (const [args, code, errorCode] of cases) {
      const result = await uwf(sb, ["--format", "json", ...args]);
      expect(result.code, args.join(" ")).toBe(code);
      expect(result.stdout).toBe("");
      const doc = JSON.parse(result.stderr) as { error: Record<string, unknown> };
      expect(doc.error).toMatchObject({ code: errorCode, message: expect.any(String) });
      expect(doc.error.hint, args.join(" ")).toEqual(expect.any(String));
    }
  });
});
