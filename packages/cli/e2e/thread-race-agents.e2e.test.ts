import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type AgentHome,
  agentCliPath,
  agentHome,
  type FakeLlm,
  makeGitRepo,
  REPO_ROOT,
  runUwf,
  startFakeLlm,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify as stringifyYaml } from "yaml";

/**
 * A race between a real agent CLI (Claude Code, its model replaced by the fake one) and
 * uwf-mock, on a workflow whose threads run in git worktrees: each fork writes in its own.
 */
const WORKFLOW = `name: note
worktree: true
roles:
  writer:
    goal: "Write the note the task asks for. [[scenario:writer]]"
    frontmatter:
      type: object
      properties:
        $status: { const: done }
        file: { type: string }
      required: [$status, file]
graph:
  $START:
    new: { role: writer, prompt: "Write the note." }
    resume: { role: writer, prompt: "Write it again." }
  writer:
    done: { role: $END, prompt: "Finished." }
`;

let temp: TempHome;
let agent: AgentHome;
let fake: FakeLlm;
let repo: string;

beforeAll(async () => {
  temp = tempHome();
  agent = agentHome();
  fake = await startFakeLlm({
    script: {
      scenarios: {
        writer: [
          {
            text: "Writing NOTE.md.",
            tool: { Write: { file_path: "NOTE.md", content: "Claude's note.\n" } },
          },
          { text: "---\n$status: done\nfile: NOTE.md\n---\nThe note is written.\n" },
        ],
      },
    },
  });
  repo = makeGitRepo(temp.home, join(temp.home, "project"), { "README.md": "# Project\n" });
  writeFileSync(join(temp.home, "note.yaml"), WORKFLOW);
  const mockScenario = writeScenario(temp.home, [
    { role: "writer", output: { $status: "done", file: "MOCK.md" } },
  ]);
  const config = {
    providers: { anthropic: { api: "anthropic", baseUrl: fake.url, apiKey: "fake-key" } },
    models: { claude: { provider: "anthropic", name: "claude-fake" } },
    agents: {
      claude: {
        command: join(REPO_ROOT, "packages/agent-claude-code/bin/uwf-claude-code.cjs"),
        args: ["--max-retries", "0"],
        model: "claude",
      },
      mock: { command: process.execPath, args: [UWF_MOCK_BIN, "--scenario", mockScenario] },
    },
  };
  writeFileSync(join(temp.home, "config.yaml"), stringifyYaml(config), { mode: 0o600 });
});

afterAll(async () => {
  await fake?.close();
  agent?.cleanup();
  temp?.cleanup();
});

function uwf(args: string[]) {
  return runUwf(args, {
    home: temp.home,
    cwd: repo,
    env: { ...agent.env, UWF_CLAUDE_BIN: agentCliPath("claude") },
    timeoutMs: 240_000,
  });
}

async function json<T>(args: string[]): Promise<T> {
  const run = await uwf([...args, "--format", "json"]);
  if (run.code !== 0) throw new Error(`uwf ${args.join(" ")}: ${run.code}\n${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

interface Fork {
  thread: string;
  agent: string;
  outcome: string;
  output: Record<string, unknown> | null;
  usage: { inputTokens: number | null } | null;
  worktree?: string;
}

describe("thread race between Claude Code and uwf-mock", () => {
  it("runs both in their own worktrees, compares them, and the thread goes on from the winner", async () => {
    const { thread } = await json<{ thread: string }>([
      "thread",
      "start",
      join(temp.home, "note.yaml"),
      "-p",
      "Write a short note.",
    ]);
    const race = await json<{ race: string; forks: Fork[] }>([
      "thread",
      "race",
      thread,
      "--agents",
      "claude,mock",
    ]);
    const [claude, mock] = race.forks as [Fork, Fork];
    expect([claude.agent, claude.outcome, claude.output]).toEqual([
      "claude",
      "finished",
      { $status: "done", file: "NOTE.md" },
    ]);
    expect(claude.usage?.inputTokens).toEqual(expect.any(Number));
    expect([mock.agent, mock.outcome, mock.output]).toEqual([
      "mock",
      "finished",
      { $status: "done", file: "MOCK.md" },
    ]);
    // Each fork ran in a worktree of its own: Claude's note is in its worktree only.
    expect(claude.worktree).toBeDefined();
    expect(mock.worktree).toBeDefined();
    expect(claude.worktree).not.toBe(mock.worktree);
    expect(readFileSync(join(claude.worktree!, "NOTE.md"), "utf8")).toBe("Claude's note.\n");
    expect(existsSync(join(mock.worktree!, "NOTE.md"))).toBe(false);

    await json(["thread", "race", "promote", claude.thread]);
    const shown = await json<{ status: string; cwd: string; worktree: { path: string } }>([
      "thread",
      "show",
      thread,
    ]);
    // The winner completed the thread; its worktree is the thread's now.
    expect(shown.status).toBe("completed");
    expect(shown.worktree.path).toBe(claude.worktree);
  });
});
