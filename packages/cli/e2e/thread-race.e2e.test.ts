import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type PostgresServer,
  startPostgres,
  UWF_BIN,
  UWF_MOCK_BIN,
} from "@united-workforce/test-utils";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { stringify as stringifyYaml } from "yaml";
import {
  DRAFT_REVIEW,
  type ExecDoc,
  isAlive,
  mockAgent,
  processesMentioning,
  type Sandbox,
  sandbox,
  scenario,
  startThread,
  uwf,
  uwfJson,
  waitFor,
} from "./fixtures/lifecycle/harness.js";

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

interface RaceFork {
  thread: string;
  agent: string;
  status: string;
  outcome: string;
  step: string | null;
  role: string | null;
  output: Record<string, unknown> | null;
  durationMs: number | null;
  usage: Record<string, unknown> | null;
  reason?: string;
}
interface RaceDoc {
  thread: string;
  race: string;
  at: string;
  forks: RaceFork[];
  promoted?: string;
  head?: string;
  promotedFrom?: { race: string; fork: string; head: string; kept?: string };
}
interface ShowRaces {
  head: string;
  usage?: Record<string, unknown>;
  steps: number;
  race?: { id: string; of: string; at: string; agent: string; outcome?: string };
  races?: {
    race: string;
    at: string;
    forks: { thread: string; agent: string; outcome: string }[];
  }[];
  promotedFrom?: { race: string; fork: string; head: string };
}

/** Two mock agents that answer the writer's first draft differently. */
function twoWriters(): { terse: string; wordy: string } {
  const terse = mockAgent(
    scenario(sb, "terse", [
      {
        role: "writer",
        output: { $status: "drafted", title: "Short" },
        usage: { inputTokens: 100, outputTokens: 10, costUsd: 0.01 },
      },
    ]),
  );
  const wordy = mockAgent(
    scenario(sb, "wordy", [
      {
        role: "writer",
        output: { $status: "drafted", title: "A much longer title" },
        usage: { inputTokens: 300, outputTokens: 90, costUsd: 0.05 },
      },
    ]),
  );
  return { terse, wordy };
}

describe("thread race", () => {
  it("forks once per agent, runs both, compares them, and promotes the winner (the loser kept)", async () => {
    const { terse, wordy } = twoWriters();
    const { thread, head } = await startThread(sb, DRAFT_REVIEW, "Write a note");

    const raced = await uwfJson<RaceDoc>(sb, [
      "thread",
      "race",
      thread,
      "--agents",
      `${terse},${wordy}`,
    ]);
    expect(raced).toMatchObject({ thread, at: head });
    expect(raced.forks.map((f) => [f.agent, f.outcome, f.role, f.output])).toEqual([
      [terse, "finished", "writer", { $status: "drafted", title: "Short" }],
      [wordy, "finished", "writer", { $status: "drafted", title: "A much longer title" }],
    ]);
    for (const fork of raced.forks) {
      expect(fork.status).toBe("idle");
      expect(fork.durationMs).toEqual(expect.any(Number));
    }
    expect(raced.forks.map((f) => f.usage?.costUsd)).toEqual([0.01, 0.05]);
    const [winner, loser] = raced.forks as [RaceFork, RaceFork];

    const original = await uwfJson<ShowRaces>(sb, ["thread", "show", thread]);
    expect(original.head).toBe(head);
    expect(original.races).toEqual([
      {
        race: raced.race,
        at: head,
        forks: [
          { thread: winner.thread, agent: terse, status: "idle", outcome: "finished" },
          { thread: loser.thread, agent: wordy, status: "idle", outcome: "finished" },
        ],
      },
    ]);
    const fork = await uwfJson<ShowRaces>(sb, ["thread", "show", winner.thread]);
    expect(fork.race).toEqual({ id: raced.race, of: thread, at: head, agent: terse });
    const text = (await uwf(sb, ["thread", "show", thread])).stdout;
    expect(text).toContain(`race      ${raced.race} at ${head}: 2 forks`);
    // The text is the comparison table, then what to do next.
    const table = await uwf(sb, ["thread", "race", thread, "--agents", `${terse},${wordy}`]);
    expect(table.code).toBe(0);
    const rows = table.stdout.split("\n");
    expect(rows[1]).toMatch(/^FORK\s+AGENT\s+OUTCOME\s+\$STATUS\s+TOOK\s+TOKENS\s+COST\s+OUTPUT$/);
    expect(rows[2]).toMatch(/finished\s+drafted\s+.*100 in \/ 10 out\s+\$0\.0100\s+title=Short$/);
    expect(rows[3]).toMatch(/title=A much longer title$/);
    expect(rows[4]).toContain("uwf thread race promote ");

    const promoted = await uwfJson<RaceDoc>(sb, ["thread", "race", "promote", winner.thread]);
    expect(promoted).toMatchObject({
      thread,
      race: raced.race,
      promoted: winner.thread,
      head: winner.step,
      promotedFrom: { race: raced.race, fork: winner.thread, head },
    });
    expect(promoted.forks.map((f) => [f.thread, f.outcome])).toEqual([
      [winner.thread, "won"],
      [loser.thread, "lost"],
    ]);
    const after = await uwfJson<ShowRaces>(sb, ["thread", "show", thread]);
    // The winner's step and what it cost are the thread's now.
    expect(after).toMatchObject({ head: winner.step, steps: 1, usage: { costUsd: 0.01 } });
    expect(after.races?.[0]?.forks.map((f) => f.outcome)).toEqual(["won", "lost"]);
    // The loser is kept, as it was.
    const lost = await uwfJson<ShowRaces>(sb, ["thread", "show", loser.thread]);
    expect(lost).toMatchObject({ head: loser.step, race: { outcome: "lost" } });

    // The thread goes on from the winner's step: its next role is the reviewer.
    const reviewer = mockAgent(
      scenario(sb, "review", [
        { role: "writer", output: { $status: "drafted", title: "Short" } },
        { role: "reviewer", output: { $status: "approved" } },
      ]),
    );
    const run = await uwfJson<ExecDoc>(sb, ["thread", "exec", thread, "--agent", reviewer]);
    expect(run.steps.map((s) => s.role)).toEqual(["reviewer"]);

    // Promoting again: the thread moved on since the race began; nothing is written.
    const again = await uwf(sb, ["thread", "race", "promote", loser.thread]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`thread ${thread} moved on since race ${raced.race} began`);
    expect((await uwfJson<ShowRaces>(sb, ["thread", "show", loser.thread])).race?.outcome).toBe(
      "lost",
    );
  });

  it("shows a crashed agent as failed, exits 0 while another finished, 4 when none did", async () => {
    const { terse } = twoWriters();
    const crash = `${process.execPath} ${join(sb.home, "missing-adapter.js")}`;
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Write a note");

    const mixed = await uwf(sb, ["thread", "race", thread, "--agents", `${terse},${crash}`]);
    expect(mixed.code).toBe(0);
    expect(mixed.stdout).toMatch(/finished\s+drafted/);
    expect(mixed.stdout).toMatch(/failed\s+—/);

    const none = await uwf(sb, [
      "thread",
      "race",
      thread,
      "--agents",
      `${crash},${crash}`,
      "--format",
      "json",
    ]);
    expect(none.code).toBe(4);
    const doc = JSON.parse(none.stdout) as RaceDoc;
    expect(doc.forks.map((f) => f.outcome)).toEqual(["failed", "failed"]);
    expect(doc.forks[0]!.reason).toBeTruthy();

    // A failed fork stored no step: it cannot be promoted.
    const refused = await uwf(sb, ["thread", "race", "promote", doc.forks[0]!.thread]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("stored no step");
  });

  it("shows an agent that timed out as failed while the other finished, with progress", async () => {
    const slow = scenario(sb, "slow", [
      { role: "writer", delay_ms: 600_000, output: { $status: "drafted", title: "Late" } },
    ]);
    const quick = scenario(sb, "quick", [
      { role: "writer", output: { $status: "drafted", title: "On time" } },
    ]);
    const mock = (file: string) => [UWF_MOCK_BIN, "--scenario", file];
    const config = {
      agents: {
        slow: { command: process.execPath, args: mock(slow), timeoutSeconds: 1 },
        quick: { command: process.execPath, args: mock(quick) },
      },
    };
    writeFileSync(join(sb.home, "config.yaml"), stringifyYaml(config), { mode: 0o600 });
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Write a note");
    const raced = await uwf(sb, ["thread", "race", thread, "--agents", "quick,slow"]);
    expect(raced.code).toBe(0);
    const [, , quickRow, slowRow] = raced.stdout.split("\n");
    expect(quickRow).toMatch(/quick\s+finished\s+drafted/);
    expect(slowRow).toMatch(/slow\s+failed\s+—/);
    expect(slowRow).toContain("timed out");
    expect(raced.stderr).toMatch(/fork \S+ \(quick\): writer → drafted/);
    expect(raced.stderr).toMatch(/fork \S+ \(slow\): writer failed/);
  });

  it("refuses a thread that is no fork of a race, one agent, and an unknown agent, writing nothing", async () => {
    const { terse } = twoWriters();
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Write a note");
    const plain = await uwf(sb, ["thread", "race", "promote", thread]);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain(`thread ${thread} is no fork of a race`);

    const one = await uwf(sb, ["thread", "race", thread, "--agents", terse]);
    expect(one.code).toBe(2);
    const unknown = await uwf(sb, ["thread", "race", thread, "--agents", `${terse},nosuchagent`]);
    expect(unknown.code).toBe(2);
    const list = await uwfJson<{ threads: unknown[] }>(sb, ["thread", "list"]);
    expect(list.threads).toHaveLength(1);
  });

  it("races at an earlier step, and promotion keeps the thread's own later steps in a fork", async () => {
    const steps = scenario(sb, "steps", [
      { role: "writer", output: { $status: "drafted", title: "Draft" } },
      { role: "reviewer", output: { $status: "changes", notes: "Shorter." } },
    ]);
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Write a note");
    const run = await uwfJson<ExecDoc>(sb, [
      "thread",
      "exec",
      thread,
      "-c",
      "2",
      "--agent",
      mockAgent(steps),
    ]);
    const [first, second] = run.steps.map((s) => s.hash) as [string, string];
    const reviewers = (status: string) =>
      mockAgent(
        scenario(sb, status, [
          { role: "writer", output: { $status: "drafted", title: "Draft" } },
          { role: "reviewer", output: { $status: "approved" } },
        ]),
      );
    const raced = await uwfJson<RaceDoc>(sb, [
      "thread",
      "race",
      thread,
      "--at",
      first,
      "--agents",
      `${reviewers("a")},${reviewers("b")}`,
    ]);
    expect(raced.forks.map((f) => f.output?.$status)).toEqual(["approved", "approved"]);
    expect(raced.forks.map((f) => f.status)).toEqual(["completed", "completed"]);
    const promoted = await uwfJson<RaceDoc>(sb, [
      "thread",
      "race",
      "promote",
      raced.forks[1]!.thread,
    ]);
    const kept = promoted.promotedFrom?.kept;
    expect(kept).toBeDefined();
    expect((await uwfJson<ShowRaces>(sb, ["thread", "show", kept!])).head).toBe(second);
    expect(await uwfJson<ShowRaces>(sb, ["thread", "show", thread])).toMatchObject({
      head: raced.forks[1]!.step,
      steps: 2,
    });
  });

  it("keeps a raced fork's race through export and import", async () => {
    const { terse, wordy } = twoWriters();
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Write a note");
    const raced = await uwfJson<RaceDoc>(sb, [
      "thread",
      "race",
      thread,
      "--agents",
      `${terse},${wordy}`,
    ]);
    const fork = raced.forks[0]!.thread;
    const file = join(sb.home, "fork.uwf");
    expect((await uwf(sb, ["thread", "export", fork, "-o", file])).code).toBe(0);
    const other = sandbox();
    try {
      const imported = await uwf(other, ["thread", "import", file]);
      expect(imported.code).toBe(0);
      const shown = await uwfJson<ShowRaces>(other, ["thread", "show", fork]);
      expect(shown.race).toEqual({ id: raced.race, of: thread, at: raced.at, agent: terse });
    } finally {
      other.cleanup();
    }
  });

  it("stops every fork on SIGINT: exit 130, agents gone, each fork idle at the race's step", async () => {
    const slow = (name: string) =>
      scenario(sb, name, [
        // Far longer than the test waits: the steps end only by the signal.
        { role: "writer", delay_ms: 600_000, output: { $status: "drafted", title: name } },
      ]);
    const [a, b] = [slow("slow-a"), slow("slow-b")];
    const { thread, head } = await startThread(sb, DRAFT_REVIEW, "Write a note");
    const child = spawn(
      process.execPath,
      [
        UWF_BIN,
        "thread",
        "race",
        thread,
        "--agents",
        `${mockAgent(a)},${mockAgent(b)}`,
        "--format",
        "json",
      ],
      {
        cwd: sb.work,
        env: { ...process.env, UWF_HOME: sb.home },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += String(chunk);
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    // The race's own command line names the scenarios too: the agents are the other processes.
    const agentsOf = (file: string) => processesMentioning(file).filter((pid) => pid !== child.pid);
    await waitFor("both agents to run", () => [a, b].every((file) => agentsOf(file).length > 0));
    const agents = [a, b].flatMap(agentsOf);
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    await waitFor("the agents to stop", () => agents.every((pid) => !isAlive(pid)));
    const doc = JSON.parse(stdout) as RaceDoc;
    expect(doc.forks.map((f) => f.outcome)).toEqual(["interrupted", "interrupted"]);
    for (const fork of doc.forks) {
      const shown = await uwfJson<ShowRaces & { status: string }>(sb, [
        "thread",
        "show",
        fork.thread,
      ]);
      expect(shown).toMatchObject({ head, status: "idle" });
    }
  });
});

describe("thread race on a PostgreSQL store", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("records the race, shows it and promotes the winner as on the filesystem", async () => {
    const env = { UWF_STORE: await server.createDatabase() };
    const { terse, wordy } = twoWriters();
    const started = await uwf(sb, ["thread", "start", DRAFT_REVIEW, "-p", "Write a note"], { env });
    const thread = started.stdout.trim();
    const json = async <T>(args: string[]): Promise<T> => {
      const run = await uwf(sb, [...args, "--format", "json"], { env });
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as T;
    };
    const raced = await json<RaceDoc>(["thread", "race", thread, "--agents", `${terse},${wordy}`]);
    expect(raced.forks.map((f) => f.outcome)).toEqual(["finished", "finished"]);
    const shown = await json<ShowRaces>(["thread", "show", thread]);
    expect(shown.races?.[0]?.forks.map((f) => f.thread)).toEqual(raced.forks.map((f) => f.thread));
    await json(["thread", "race", "promote", raced.forks[1]!.thread]);
    expect(await json<ShowRaces>(["thread", "show", thread])).toMatchObject({
      head: raced.forks[1]!.step,
      promotedFrom: { race: raced.race, fork: raced.forks[1]!.thread },
    });
    const lost = await json<ShowRaces>(["thread", "show", raced.forks[0]!.thread]);
    expect(lost.race?.outcome).toBe("lost");
  }, 120_000);
});
