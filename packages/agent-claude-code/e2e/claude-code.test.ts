import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type AgentHome,
  agentCliPath,
  agentHome,
  answer,
  CONFORMANCE_WORKFLOW,
  type FakeLlm,
  REPO_ROOT,
  type RunResult,
  runBin,
  runUwf,
  startFakeLlm,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// What only uwf-claude-code has, against the real pinned claude; the shared cases are in
// conformance.test.ts.
const ADAPTER = join(REPO_ROOT, "packages/agent-claude-code/bin/uwf-claude-code.cjs");
const claude = agentCliPath("claude");
const writeThenAnswer = {
  steps: [
    { text: "Writing x.txt.", tool: { Write: { file_path: "x.txt", content: "x\n" } } },
    { text: answer("next", "done") },
  ],
};

let temp: TempHome;
let agent: AgentHome;
let fake: FakeLlm;
let uwfHome: string;
let repo: string;

beforeEach(async () => {
  temp = tempHome();
  agent = agentHome();
  fake = await startFakeLlm({ script: writeThenAnswer });
  uwfHome = join(temp.home, "uwf-home");
  repo = join(temp.home, "repo");
  mkdirSync(uwfHome);
  mkdirSync(repo);
  writeFileSync(join(temp.home, "conformance.yaml"), CONFORMANCE_WORKFLOW);
});
afterEach(async () => {
  await fake.close();
  agent.cleanup();
  temp.cleanup();
});

/** config.yaml, written as JSON (which YAML reads). */
function configure(args: string[], withModel = true): void {
  const config = {
    providers: { fake: { api: "anthropic", baseUrl: fake.url, apiKey: "fake-key" } },
    models: { fake: { provider: "fake", name: "claude-fake" } },
    agents: {
      cc: { command: ADAPTER, args, ...(withModel ? { model: "fake" } : {}) },
    },
    defaultAgent: "cc",
  };
  writeFileSync(join(uwfHome, "config.yaml"), JSON.stringify(config, null, 2), { mode: 0o600 });
}

function uwf(args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  return runUwf(args, {
    home: uwfHome,
    cwd: repo,
    env: { ...agent.env, UWF_CLAUDE_BIN: claude, ...env },
  });
}

async function uwfJson<T>(args: string[]): Promise<T> {
  const result = await uwf([...args, "--format", "json"]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** Start a thread and run its first step; the exec result and the step's detail. */
async function runFirstStep(env: Record<string, string> = {}, task = "Write x.txt.") {
  // The task goes on stdin (`-p -`): it may be too large for an argument.
  const started = await runUwf(
    ["thread", "start", join(temp.home, "conformance.yaml"), "-p", "-", "--format", "json"],
    { home: uwfHome, cwd: repo, input: task },
  );
  expect(started.code, started.stderr).toBe(0);
  const { thread } = JSON.parse(started.stdout) as { thread: string };
  const exec = await uwf(["thread", "exec", thread, "-c", "1"], env);
  const list = await uwfJson<{ steps: { hash: string }[] }>(["step", "list", thread]);
  let detail: Record<string, unknown> | null = null;
  if (list.steps[0]) {
    const step = await uwfJson<{ detail: string }>(["step", "show", list.steps[0].hash]);
    const node = await uwfJson<{ payload: Record<string, unknown> }>(["cas", "get", step.detail]);
    detail = node.payload;
  }
  return { thread, exec, detail };
}

describe("uwf-claude-code with the real claude", () => {
  it("reports a permission denial on stderr and in the detail instead of staying silent", async () => {
    configure(["--max-retries", "0", "--permission-mode", "default"]);
    const { exec, detail } = await runFirstStep();
    expect(exec.code, exec.stderr).toBe(0);
    expect(exec.stderr).toMatch(/uwf-claude-code: permission denied: Write .*x\.txt/);
    expect(detail?.permissionDenials).toEqual([
      { tool: "Write", input: { file_path: join(repo, "x.txt"), content: "x\n" } },
    ]);
  });

  it("records the session, the model and the turns with the tool call and its result", async () => {
    configure(["--max-retries", "0"]);
    const { exec, detail } = await runFirstStep();
    expect(exec.code, exec.stderr).toBe(0);
    expect(exec.stderr).toContain("uwf-claude-code: tool Write x.txt");
    expect(detail).toMatchObject({
      adapter: "uwf-claude-code",
      model: "claude-fake",
      sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      claudeVersion: "2.1.197",
      permissionDenials: [],
    });
    const turns = detail?.turns as string[];
    expect(turns).toHaveLength(2);
    const first = await uwfJson<{ payload: unknown }>(["cas", "get", turns[0]!]);
    expect(first.payload).toEqual({
      text: "Writing x.txt.",
      toolCalls: [
        {
          name: "Write",
          input: { file_path: "x.txt", content: "x\n" },
          output: expect.stringContaining("File created successfully"),
        },
      ],
      usage: null,
    });
  });

  it("masks the key in a model error that echoes it", async () => {
    configure(["--max-retries", "0"]);
    // claude words a 401 itself; other statuses carry the server's message.
    fake.setScript({ steps: [{ error: { status: 400, message: "upstream refused fake-key" } }] });
    const { thread, exec } = await runFirstStep({}, "Write x.txt.");
    expect(exec.code).toBe(4);
    expect(exec.stderr).toContain("upstream refused ****");
    expect(exec.stderr).not.toContain("fake-key");
    const shown = await uwfJson<{ suspended: { reason: string } }>(["thread", "show", thread]);
    expect(shown.suspended.reason).toContain("upstream refused ****");
    expect(shown.suspended.reason).not.toContain("fake-key");
  });

  it("with a model alias ignores Anthropic settings in the caller's environment", async () => {
    configure(["--max-retries", "0"]);
    const { exec } = await runFirstStep({
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
      ANTHROPIC_API_KEY: "sk-ant-must-not-leak",
    });
    expect(exec.code, exec.stderr).toBe(0);
    const keys = fake.requests().map((r) => r.headers["x-api-key"]);
    expect(keys.filter(Boolean)).toEqual(["fake-key", "fake-key"]);
  });

  it("without a model alias runs on claude's own settings from the environment", async () => {
    configure(["--max-retries", "0"], false);
    const { exec } = await runFirstStep({
      ANTHROPIC_BASE_URL: fake.url,
      ANTHROPIC_API_KEY: "sk-ant-own-login",
    });
    expect(exec.code, exec.stderr).toBe(0);
    expect(fake.requests().filter((r) => r.method === "POST")[0]?.headers["x-api-key"]).toBe(
      "sk-ant-own-login",
    );
  });

  it("hands claude a prompt larger than one command-line argument may be, on stdin", async () => {
    configure(["--max-retries", "0"]);
    // Linux refuses a single argument over 128 KiB; the task is part of claude's prompt.
    const task = `Write x.txt. ${"context ".repeat(40_000)}end-of-task-R8`;
    const { exec } = await runFirstStep({}, task);
    expect(exec.code, exec.stderr).toBe(0);
    const first = fake.requests().find((r) => r.method === "POST");
    expect(JSON.stringify(first?.body)).toContain("end-of-task-R8");
  });

  it("prints its version and claude's", async () => {
    const result = await runBin(ADAPTER, ["--version"], { env: { UWF_CLAUDE_BIN: claude } });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^uwf-claude-code \d+\.\d+\.\d+\nclaude: 2\.1\.197 \(Claude Code\)\n$/,
    );
  });
});
