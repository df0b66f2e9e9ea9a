import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type AgentHome,
  agentCliPath,
  agentHome,
  type FakeLlm,
  type FakeStep,
  REPO_ROOT,
  runUwf,
  startFakeLlm,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify as stringifyYaml } from "yaml";

/**
 * One coding workflow whose roles run in four different real agents (issue 7): the planner in
 * Claude Code, the developer in Codex, the reviewer in Gemini over ACP and the tester in the
 * built-in agent, each against the same fake model (only the model is replaced). Every agent
 * writes a file with its own tool in a temp git repository; the thread completes.
 */
const ROLES = ["planner", "developer", "reviewer", "tester"] as const;
type Role = (typeof ROLES)[number];

const WORKFLOW = `name: coding
description: Plan, implement, review and test a small change, each role in its own agent.
roles:
${ROLES.map(
  (role) => `  ${role}:
    goal: "Do the ${role}'s part of the task. [[scenario:${role}]]"
    frontmatter:
      type: object
      properties:
        $status: { const: done }
        file: { type: string }
      required: [$status, file]`,
).join("\n")}
graph:
  $START:
    new: { role: planner, prompt: "Plan the change." }
    resume: { role: planner, prompt: "Plan the change again." }
  planner:
    done: { role: developer, prompt: "Implement the plan in {{{file}}}'s neighbour." }
  developer:
    done: { role: reviewer, prompt: "Review the change." }
  reviewer:
    done: { role: tester, prompt: "Test the change." }
  tester:
    done: { role: $END, prompt: "Finished." }
`;

/** The file each role writes, and the tool call its agent's CLI offers for that. */
const WRITES: Record<Role, { path: string; content: string; tool: FakeStep["tool"] }> = {
  planner: {
    path: "PLAN.md",
    content: "# Plan\n\nAdd greet().\n",
    tool: { Write: { file_path: "PLAN.md", content: "# Plan\n\nAdd greet().\n" } },
  },
  developer: {
    path: "greet.js",
    content: 'export const greet = (n) => "Hello, " + n;\n',
    tool: {
      apply_patch:
        '*** Begin Patch\n*** Add File: greet.js\n+export const greet = (n) => "Hello, " + n;\n*** End Patch\n',
    },
  },
  reviewer: {
    path: "REVIEW.md",
    content: "Looks good.\n",
    tool: { write_file: { file_path: "REVIEW.md", content: "Looks good.\n" } },
  },
  tester: {
    path: "TESTS.md",
    content: "greet('Ada') -> Hello, Ada!\n",
    tool: { write_file: { path: "TESTS.md", content: "greet('Ada') -> Hello, Ada!\n" } },
  },
};

let temp: TempHome;
let agent: AgentHome;
let fake: FakeLlm;
let uwfHome: string;
let repo: string;

beforeAll(async () => {
  temp = tempHome();
  agent = agentHome();
  const scenarios = Object.fromEntries(
    ROLES.map((role) => [
      role,
      [
        { text: `Writing ${WRITES[role].path}.`, tool: WRITES[role].tool },
        { text: `---\n$status: done\nfile: ${WRITES[role].path}\n---\nThe ${role} is done.\n` },
      ],
    ]),
  );
  fake = await startFakeLlm({ script: { scenarios } });
  uwfHome = join(temp.home, "uwf-home");
  repo = join(temp.home, "repo");
  mkdirSync(uwfHome);
  mkdirSync(repo);
  const git = spawnSync("git", ["init", "-q", repo], { encoding: "utf8" });
  if (git.status !== 0) throw new Error(`git init failed: ${git.stderr}`);
  mkdirSync(join(agent.home, ".codex"));
  writeFileSync(join(temp.home, "coding.yaml"), WORKFLOW);
  const adapter = (pkg: string, bin: string) => join(REPO_ROOT, `packages/${pkg}/bin/${bin}.cjs`);
  const config = {
    providers: {
      anthropic: { api: "anthropic", baseUrl: fake.url, apiKey: "fake-key" },
      responses: { api: "openai-responses", baseUrl: fake.baseUrl, apiKey: "fake-key" },
      gemini: { api: "gemini", baseUrl: fake.url, apiKey: "fake-key" },
      chat: { api: "openai-chat", baseUrl: fake.baseUrl, apiKey: "fake-key" },
    },
    models: {
      claude: { provider: "anthropic", name: "claude-fake" },
      gpt: { provider: "responses", name: "gpt-5.5" },
      flash: { provider: "gemini", name: "gemini-2.5-flash" },
      chat: { provider: "chat", name: "fake-model" },
    },
    agents: {
      claude: {
        command: adapter("agent-claude-code", "uwf-claude-code"),
        args: ["--max-retries", "0"],
        model: "claude",
      },
      codex: { command: adapter("agent-codex", "uwf-codex"), model: "gpt" },
      gemini: {
        command: adapter("agent-acp", "uwf-acp"),
        args: ["--preset", "gemini"],
        model: "flash",
      },
      builtin: { command: adapter("agent-builtin", "uwf-builtin"), model: "chat" },
    },
    agentOverrides: {
      coding: { planner: "claude", developer: "codex", reviewer: "gemini", tester: "builtin" },
    },
  };
  writeFileSync(join(uwfHome, "config.yaml"), stringifyYaml(config), { mode: 0o600 });
});

afterAll(async () => {
  await fake?.close();
  agent?.cleanup();
  temp?.cleanup();
});

function uwf(args: string[]) {
  return runUwf(args, {
    home: uwfHome,
    cwd: repo,
    env: {
      ...agent.env,
      UWF_CLAUDE_BIN: agentCliPath("claude"),
      UWF_CODEX_BIN: agentCliPath("codex"),
      CODEX_HOME: join(agent.home, ".codex"),
      UWF_ACP_BIN: agentCliPath("gemini"),
    },
    timeoutMs: 240_000,
  });
}

describe("a coding workflow across Claude Code, Codex, Gemini (ACP) and the built-in agent", () => {
  it("completes, each agent writing its file with its own tool, every step with usage", async () => {
    const started = await uwf([
      "--format",
      "json",
      "thread",
      "start",
      join(temp.home, "coding.yaml"),
      "-p",
      "Add a greet(name) function with a test.",
      "--cwd",
      repo,
    ]);
    expect(started.code, started.stderr).toBe(0);
    const { thread } = JSON.parse(started.stdout) as { thread: string };

    const exec = await uwf(["thread", "exec", thread, "-c", "10"]);
    expect(exec.code, `${exec.stdout}\n${exec.stderr}`).toBe(0);

    for (const role of ROLES) {
      const file = join(repo, WRITES[role].path);
      expect(existsSync(file), `${role} did not write ${WRITES[role].path}`).toBe(true);
      expect(readFileSync(file, "utf8")).toBe(WRITES[role].content);
    }

    const shown = await uwf(["--format", "json", "thread", "show", thread]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ status: "completed" });

    const list = await uwf(["--format", "json", "step", "list", thread]);
    const steps = (
      JSON.parse(list.stdout) as {
        steps: {
          role: string;
          status: string;
          agent: string;
          usage: { inputTokens: number | null; outputTokens: number | null };
        }[];
      }
    ).steps;
    expect(steps.map((s) => [s.role, s.status, s.agent])).toEqual([
      ["planner", "done", "uwf-claude-code"],
      ["developer", "done", "uwf-codex"],
      ["reviewer", "done", "uwf-acp"],
      ["tester", "done", "uwf-builtin"],
    ]);
    for (const step of steps) {
      expect(step.usage.inputTokens, `${step.role} input tokens`).toEqual(expect.any(Number));
      expect(step.usage.outputTokens, `${step.role} output tokens`).toEqual(expect.any(Number));
    }

    const read = await uwf(["thread", "read", thread]);
    expect(read.code).toBe(0);
    for (const role of ROLES) expect(read.stdout).toContain(`The ${role} is done.`);
    // Every step's facts line shows the tokens its agent reported.
    const facts = read.stdout.split("\n").filter((line) => line.startsWith("<!-- step "));
    expect(facts).toHaveLength(4);
    for (const line of facts) expect(line).toMatch(/ \d+ in \/ \d+ out tokens/);

    // Each agent's CLI spoke its own API to the fake.
    const urls = new Set(fake.requests().map((r) => r.url.split("?")[0]));
    expect([...urls]).toEqual(
      expect.arrayContaining([
        "/v1/messages",
        "/v1/responses",
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
        "/v1/chat/completions",
      ]),
    );
  }, 300_000);
});
