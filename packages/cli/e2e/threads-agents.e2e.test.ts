import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type RunOptions, runUwf, UWF_MOCK_BIN } from "@united-workforce/test-utils";
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
  showStep,
  showThread,
  startThread,
  uwf,
  uwfJson,
} from "./fixtures/lifecycle/harness.js";

// How `uwf` picks, remembers and feeds the agent of a step: --agent words, relative paths,
// the remembered agent, config's model and env, long edge prompts, and where the task comes
// from. Every test runs the built binary in a fresh UWF_HOME.

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

type AgentShowDoc = ShowDoc & { agent: string | null };

function writeConfig(config: Record<string, unknown>): void {
  writeFileSync(join(sb.home, "config.yaml"), stringifyYaml(config), { mode: 0o600 });
}

/** `uwf` with stdin, or from another directory than the sandbox's work folder. */
function uwfWith(args: string[], options: RunOptions): ReturnType<typeof runUwf> {
  return runUwf(args, { home: sb.home, cwd: sb.work, ...options });
}

describe("edge prompts of any size", () => {
  it("a 1 MiB edge prompt reaches the adapter whole", async () => {
    // Multi-byte characters: a pipe boundary inside one would corrupt the text.
    const title = "Ü".repeat(512 * 1024);
    const s = scenario(sb, "big", [
      { role: "writer", output: { $status: "drafted", title } },
      { role: "reviewer", output: { $status: "approved" } },
    ]);
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Write a long title");
    const run = await uwfJson<ExecDoc>(sb, [
      "thread",
      "exec",
      thread,
      "-c",
      "2",
      "--agent",
      mockAgent(s),
    ]);
    expect(run.stoppedBecause, run.message).toBe("completed");
    // The adapter stores the edge prompt it received: the whole text, not "-".
    const review = await showStep(sb, run.steps[1]!.hash);
    expect(Buffer.byteLength(review.edgePrompt)).toBeGreaterThan(1024 * 1024);
    expect(review.edgePrompt).toBe(`Review the draft ${title}.`);
  });
});

describe("--agent", () => {
  it("takes a command on PATH with no config at all, and the thread remembers it", async () => {
    const s = scenario(sb, "hello", [
      { role: "greeter", output: { $status: "done", greeting: "Hi" } },
    ]);
    const { thread } = await startThread(sb, HELLO, "Greet Ada");
    const run = await uwf(sb, ["thread", "exec", thread, "--agent", "uwf-mock"], {
      env: { UWF_MOCK_SCENARIO: s },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("▶ #1 greeter (uwf-mock)");
    expect(await uwfJson<AgentShowDoc>(sb, ["thread", "show", thread])).toMatchObject({
      status: "completed",
      agent: "uwf-mock",
    });
    const text = await uwf(sb, ["thread", "show", thread]);
    expect(text.stdout).toContain("agent     uwf-mock (from --agent)");
  });

  it("refuses a word that is neither an alias nor on PATH, naming the aliases; nothing changes", async () => {
    writeConfig({
      agents: { mock: { command: "uwf-mock" }, claude: { command: "uwf-claude-code" } },
    });
    const { thread } = await startThread(sb, HELLO, "Greet Ada");
    const run = await uwf(sb, ["thread", "exec", thread, "--agent", "uwf-nope"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'unknown agent "uwf-nope": it is not an agent alias in config.yaml, and "uwf-nope" not found in PATH',
    );
    expect(run.stderr).toContain("Known agents: mock, claude.");
    expect(await uwfJson<AgentShowDoc>(sb, ["thread", "show", thread])).toMatchObject({
      status: "idle",
      steps: 0,
      agent: null,
    });
  });

  it("resolves a relative command against the caller's directory, not the thread's", async () => {
    const caller = join(sb.home, "caller");
    mkdirSync(join(caller, "bin"), { recursive: true });
    const agentPath = join(caller, "bin", "my-agent");
    writeFileSync(agentPath, `#!${process.execPath}\nimport ${JSON.stringify(UWF_MOCK_BIN)};\n`);
    chmodSync(agentPath, 0o755);
    const s = scenario(sb, "relay", [
      { role: "writer", output: { $status: "drafted", title: "T" } },
      { role: "reviewer", output: { $status: "approved" } },
    ]);
    // The thread works in sb.work; the user types the command from `caller`.
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Draft");
    const first = await uwfWith(
      ["thread", "exec", thread, "--agent", `./bin/my-agent --scenario ${s}`],
      {
        cwd: caller,
      },
    );
    expect(first.code, first.stderr).toBe(0);
    const shown = await uwfJson<AgentShowDoc>(sb, ["thread", "show", thread]);
    expect(shown.agent).toBe(`${agentPath} --scenario ${s}`);

    // Remembered absolute: a later exec from anywhere else runs the same agent.
    const elsewhere = join(sb.home, "elsewhere");
    mkdirSync(elsewhere);
    const second = await uwfWith(["thread", "exec", thread, "--format", "json"], {
      cwd: elsewhere,
    });
    expect(second.code, second.stderr).toBe(0);
    expect((JSON.parse(second.stdout) as ExecDoc).steps.map((x) => x.agent)).toEqual(["my-agent"]);
    expect((await showThread(sb, thread)).status).toBe("completed");
  });

  it("refuses a relative command that does not exist where the caller is", async () => {
    const { thread } = await startThread(sb, HELLO, "Greet Ada");
    const run = await uwfWith(["thread", "exec", thread, "--agent", "./bin/nope --x"], {
      cwd: sb.home,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `cannot run --agent "./bin/nope --x": "${join(sb.home, "bin/nope")}" not found or not executable`,
    );
  });
});

describe("the agent a thread remembers", () => {
  it("runs exec, resume and poke without --agent, over agentOverrides and defaultAgent", async () => {
    // Config would send every role to a command that does not exist.
    writeConfig({
      agents: { broken: { command: "uwf-not-installed" } },
      defaultAgent: "broken",
      agentOverrides: { "draft-review": { reviewer: "broken" } },
    });
    const s = scenario(sb, "remember", [
      { role: "writer", output: { $status: "drafted", title: "T" } },
      { role: "reviewer", output: { $status: "unclear", question: "Which tone?" } },
      { role: "reviewer", output: { $status: "approved" } },
    ]);
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Draft");
    const agent = mockAgent(s);
    await uwfJson<ExecDoc>(sb, ["thread", "exec", thread, "--agent", agent]);
    expect((await uwfJson<AgentShowDoc>(sb, ["thread", "show", thread])).agent).toBe(agent);

    const asked = await uwfJson<ExecDoc>(sb, ["thread", "exec", thread]);
    expect(asked.steps.map((x) => `${x.role}:${x.status}`)).toEqual(["reviewer:unclear"]);
    expect(asked.stoppedBecause).toBe("suspended");

    const answered = await uwfJson<ExecDoc>(sb, ["thread", "resume", thread, "-p", "Warm."]);
    expect(answered.steps.map((x) => `${x.role}:${x.status}`)).toEqual(["reviewer:approved"]);
    expect(answered.status).toBe("completed");

    // Poke replaces the head (the adapter gets --replace-head): the step count stays 3.
    const poked = await uwfJson<ExecDoc>(sb, ["thread", "poke", thread, "-p", "Once more."]);
    expect(poked.steps.map((x) => `${x.role}:${x.status}`)).toEqual(["reviewer:approved"]);
    const after = await showThread(sb, thread);
    expect(after).toMatchObject({ steps: 3, head: poked.steps[0]!.hash, status: "completed" });
    expect((await showStep(sb, poked.steps[0]!.hash)).prev).toBe(asked.steps[0]!.hash);
  });

  it("is replaced by the next --agent", async () => {
    const s = scenario(sb, "two", [
      { role: "writer", output: { $status: "drafted", title: "T" } },
      { role: "reviewer", output: { $status: "approved" } },
    ]);
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Draft");
    writeConfig({
      agents: { mock: { command: process.execPath, args: [UWF_MOCK_BIN, "--scenario", s] } },
    });
    await uwfJson<ExecDoc>(sb, ["thread", "exec", thread, "--agent", mockAgent(s)]);
    await uwfJson<ExecDoc>(sb, ["thread", "exec", thread, "--agent", "mock"]);
    expect((await uwfJson<AgentShowDoc>(sb, ["thread", "show", thread])).agent).toBe("mock");
  });
});

describe("an agent's model and env from config.yaml", () => {
  it("passes the agent's model to the adapter as --model", async () => {
    const s = scenario(sb, "model", [
      { role: "greeter", output: { $status: "done", greeting: "Hi" } },
    ]);
    // The model alias must be configured: config.yaml naming an unknown one is refused.
    writeConfig({
      providers: { local: { baseUrl: "http://127.0.0.1:9/v1" } },
      models: { fast: { provider: "local", name: "fake-model" } },
      agents: {
        mock: { command: process.execPath, args: [UWF_MOCK_BIN, "--scenario", s], model: "fast" },
      },
      defaultAgent: "mock",
    });
    const { thread } = await startThread(sb, HELLO, "Greet Ada");
    const run = await uwfJson<ExecDoc>(sb, ["thread", "exec", thread]);
    const step = await uwfJson<{ detail: string }>(sb, ["step", "show", run.steps[0]!.hash]);
    const detail = await uwfJson<{ payload: { model: string } }>(sb, ["cas", "get", step.detail]);
    expect(detail.payload.model).toBe("fast");
  });
});

describe("uwf-mock raw replies", () => {
  it("completes a thread from a scenario whose output is the raw reply text", async () => {
    const s = scenario(sb, "raw", [
      { role: "greeter", output: "---\n$status: done\ngreeting: Hello Ada\n---\nHello, Ada!" },
    ]);
    const { thread } = await startThread(sb, HELLO, "Greet Ada");
    const run = await uwfJson<ExecDoc>(sb, ["thread", "exec", thread, "--agent", mockAgent(s)]);
    expect(run.status).toBe("completed");
    const step = await showStep(sb, run.steps[0]!.hash);
    expect(step.outputValue).toEqual({ $status: "done", greeting: "Hello Ada" });
  });
});

describe("thread start: where the task comes from", () => {
  async function startedTask(result: Awaited<ReturnType<typeof runUwf>>): Promise<string> {
    expect(result.code, result.stderr).toBe(0);
    const { thread } = JSON.parse(result.stdout) as { thread: string };
    const read = await uwfJson<{ markdown: string }>(sb, ["thread", "read", thread, "--start"]);
    return read.markdown;
  }

  it("reads -p - from stdin and --prompt-file from a file", async () => {
    const fromStdin = await uwfWith(["thread", "start", HELLO, "-p", "-", "--format", "json"], {
      input: "Greet the *whole* team\nfrom stdin.\n",
    });
    expect(await startedTask(fromStdin)).toContain("Greet the *whole* team\nfrom stdin.");
    writeFileSync(join(sb.work, "task.md"), "Greet Grace, from a file.\n");
    const fromFile = await uwf(sb, [
      "thread",
      "start",
      HELLO,
      "--prompt-file",
      "task.md",
      "--format",
      "json",
    ]);
    expect(await startedTask(fromFile)).toContain("Greet Grace, from a file.");
  });

  it("refuses both sources, an empty task and an unreadable file with exit 2 and a hint", async () => {
    writeFileSync(join(sb.work, "task.md"), "x");
    const both = await uwf(sb, ["thread", "start", HELLO, "-p", "x", "--prompt-file", "task.md"]);
    expect([both.code, both.stderr]).toEqual([
      2,
      expect.stringContaining("-p/--prompt and --prompt-file were both given"),
    ]);
    const empty = await uwfWith(["thread", "start", HELLO, "-p", "-"], { input: "\n" });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("the task from stdin (-p -) is empty");
    expect(empty.stderr).toContain("hint:");
    const missing = await uwf(sb, ["thread", "start", HELLO, "--prompt-file", "nope.md"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cannot read the task from --prompt-file nope.md");
    const none = await uwf(sb, ["thread", "start", HELLO]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("--prompt is required (or give --prompt-file)");
    expect((await uwfJson<{ total: number }>(sb, ["thread", "list"])).total).toBe(0);
  });
});
