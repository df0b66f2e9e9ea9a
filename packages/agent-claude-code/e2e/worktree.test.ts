import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type AgentHome,
  agentCliPath,
  agentHome,
  answer,
  CONFORMANCE_WORKFLOW,
  type FakeLlm,
  makeGitRepo,
  REPO_ROOT,
  runGit,
  runUwf,
  startFakeLlm,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// A thread with its own git worktree, run by the real pinned claude against the fake model:
// the file claude writes lands in the thread's worktree, never in the user's checkout.
const ADAPTER = join(REPO_ROOT, "packages/agent-claude-code/bin/uwf-claude-code.cjs");
const claude = agentCliPath("claude");

let temp: TempHome;
let agent: AgentHome;
let fake: FakeLlm;
let uwfHome: string;
let repo: string;

const git = (cwd: string, ...args: string[]) => runGit(temp.home, cwd, ...args);

beforeEach(async () => {
  temp = tempHome();
  agent = agentHome();
  fake = await startFakeLlm({
    script: {
      steps: [
        { text: "Writing x.txt.", tool: { Write: { file_path: "x.txt", content: "x\n" } } },
        { text: answer("next", "done") },
      ],
    },
  });
  uwfHome = join(temp.home, "uwf-home");
  mkdirSync(uwfHome);
  repo = makeGitRepo(temp.home, join(temp.home, "repo"), { "README.md": "# repo\n" });
  writeFileSync(join(temp.home, "conformance.yaml"), CONFORMANCE_WORKFLOW);
  const config = {
    providers: { fake: { api: "anthropic", baseUrl: fake.url, apiKey: "fake-key" } },
    models: { fake: { provider: "fake", name: "claude-fake" } },
    agents: { cc: { command: ADAPTER, args: ["--max-retries", "0"], model: "fake" } },
    defaultAgent: "cc",
  };
  writeFileSync(join(uwfHome, "config.yaml"), JSON.stringify(config, null, 2), { mode: 0o600 });
});
afterEach(async () => {
  await fake.close();
  agent.cleanup();
  temp.cleanup();
});

describe("uwf-claude-code in a thread's git worktree", () => {
  it("runs claude in the worktree: its file is there, the checkout is untouched", async () => {
    const uwf = (args: string[]) =>
      runUwf([...args, "--format", "json"], {
        home: uwfHome,
        cwd: repo,
        env: { ...agent.env, UWF_CLAUDE_BIN: claude },
      });
    const started = await uwf([
      "thread",
      "start",
      join(temp.home, "conformance.yaml"),
      "-p",
      "Write x.txt.",
      "--worktree",
    ]);
    expect(started.code, started.stderr).toBe(0);
    const { thread } = JSON.parse(started.stdout) as { thread: string };
    const show = JSON.parse((await uwf(["thread", "show", thread])).stdout) as {
      cwd: string;
      worktree: { path: string; branch: string };
    };
    expect(show.worktree.branch).toBe(`uwf/${thread}`);
    expect(show.cwd).toBe(show.worktree.path);

    const exec = await uwf(["thread", "exec", thread, "-c", "1"]);
    expect(exec.code, exec.stderr).toBe(0);
    expect(exec.stderr).toContain("uwf-claude-code: tool Write x.txt");
    expect(readFileSync(join(show.worktree.path, "x.txt"), "utf8")).toBe("x\n");
    expect(existsSync(join(repo, "x.txt"))).toBe(false);
    expect(git(repo, "status", "--porcelain")).toBe("");
    expect(git(show.worktree.path, "status", "--porcelain")).toBe("?? x.txt");
    // The step records where it ran: the worktree.
    const steps = JSON.parse((await uwf(["step", "list", thread])).stdout) as {
      steps: { hash: string }[];
    };
    const step = JSON.parse((await uwf(["step", "show", steps.steps[0]!.hash])).stdout) as {
      cwd: string;
    };
    expect(step.cwd).toBe(show.worktree.path);
  });
});
