import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type AgentHome,
  agentCliPath,
  agentHome,
  type FakeLlm,
  REPO_ROOT,
  runBin,
  runUwf,
  startFakeLlm,
  type TempHome,
  tempHome,
  UWF_BIN,
  UWF_MOCK_BIN,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// The pinned Claude Code loads `uwf mcp` from its MCP configuration and, scripted by the fake
// model, starts a thread, runs it and looks at it through uwf's tools.

const EXAMPLES = join(REPO_ROOT, "examples");
const TOOLS = ["mcp__uwf__thread_start", "mcp__uwf__thread_exec", "mcp__uwf__thread_show"];

let temp: TempHome;
let agent: AgentHome;
let fake: FakeLlm;
let uwfHome: string;
let project: string;

beforeEach(() => {
  temp = tempHome();
  agent = agentHome();
  uwfHome = join(temp.home, "uwf-home");
  project = join(temp.home, "project");
  mkdirSync(uwfHome);
  mkdirSync(project);
});
afterEach(async () => {
  await fake?.close();
  agent.cleanup();
  temp.cleanup();
});

/**
 * The first 4 characters of a thread id started now: a ULID begins with its time, so these stay
 * the same for 12 days. The store holds one thread, so they name it: the fake model, scripted
 * before the thread exists, cannot read its id back from the tool's result.
 */
function threadPrefixNow(): string {
  const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  let time = Date.now();
  let chars = "";
  for (let i = 0; i < 10; i++) {
    chars = alphabet[time % 32] + chars;
    time = Math.floor(time / 32);
  }
  return chars.slice(0, 4);
}

describe("uwf mcp in Claude Code", () => {
  it("starts a thread, runs it to completion and shows it through uwf's tools", async () => {
    const thread = threadPrefixNow();
    fake = await startFakeLlm({
      script: {
        steps: [
          {
            text: "Starting a thread.",
            tool: {
              mcp__uwf__thread_start: {
                workflow: join(EXAMPLES, "hello.yaml"),
                prompt: "Greet Ada",
                title: "Greeting from Claude Code",
              },
            },
          },
          {
            text: "Running it.",
            tool: {
              mcp__uwf__thread_exec: {
                thread,
                agent: `${process.execPath} ${UWF_MOCK_BIN} --scenario ${join(EXAMPLES, "scenarios", "hello.yaml")}`,
                count: 5,
                // Claude Code ends the server when its turn ends, and with it any run still going.
                wait: true,
              },
            },
          },
          { text: "Checking it.", tool: { mcp__uwf__thread_show: { thread } } },
          { text: "The thread ran." },
        ],
      },
    });
    const mcpConfig = join(temp.home, "mcp.json");
    writeFileSync(
      mcpConfig,
      JSON.stringify({
        mcpServers: {
          uwf: { command: process.execPath, args: [UWF_BIN, "mcp"], env: { UWF_HOME: uwfHome } },
        },
      }),
    );

    const run = await runBin(
      agentCliPath("claude"),
      [
        "-p",
        "Greet Ada with uwf.",
        "--output-format",
        "stream-json",
        "--verbose",
        "--model",
        "claude-fake",
        "--mcp-config",
        mcpConfig,
        "--strict-mcp-config",
        "--allowedTools",
        TOOLS.join(","),
      ],
      {
        cwd: project,
        env: {
          ...agent.env,
          CLAUDE_CONFIG_DIR: join(agent.home, ".claude"),
          ANTHROPIC_BASE_URL: fake.url,
          ANTHROPIC_API_KEY: "sk-ant-fake",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          CLAUDE_CODE_MAX_RETRIES: "0",
        },
      },
    );
    expect(run.code, run.stderr).toBe(0);

    // Each tool was offered, called, and answered without an error.
    const events = run.stdout
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const results = events.flatMap((event) => {
      const content = (event.message as { content?: unknown } | undefined)?.content;
      return Array.isArray(content)
        ? content.filter((part: { type?: string }) => part.type === "tool_result")
        : [];
    }) as { is_error?: boolean; content: unknown }[];
    expect(results).toHaveLength(3);
    for (const result of results)
      expect(result.is_error ?? false, JSON.stringify(result)).toBe(false);
    // What the model read back: the thread's document, completed.
    expect(JSON.stringify(results[2]!.content)).toContain('\\"status\\":\\"completed\\"');
    const lastRequest = fake.requests().at(-1)!.body as { tools?: { name: string }[] };
    expect(lastRequest.tools?.map((t) => t.name)).toEqual(expect.arrayContaining(TOOLS));

    // The thread is in the store and ran to its end.
    const list = await runUwf(["thread", "list", "--format", "json"], { home: uwfHome });
    const { threads } = JSON.parse(list.stdout) as {
      threads: { thread: string; title: string }[];
    };
    expect(threads).toHaveLength(1);
    expect(threads[0]).toMatchObject({ title: "Greeting from Claude Code" });
    expect(threads[0]!.thread.startsWith(thread)).toBe(true);
    const shown = await runUwf(["thread", "show", threads[0]!.thread, "--format", "json"], {
      home: uwfHome,
    });
    expect(JSON.parse(shown.stdout)).toMatchObject({
      status: "completed",
      steps: 1,
      cwd: project,
    });
  });
});
