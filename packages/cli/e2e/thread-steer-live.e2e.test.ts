import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type AgentHome,
  agentCliPath,
  agentHome,
  type FakeLlm,
  REPO_ROOT,
  runUwf,
  startFakeLlm,
  startUwf,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify as stringifyYaml } from "yaml";
import { waitFor } from "./fixtures/lifecycle/harness.js";

/**
 * `thread steer` while a step runs: the built-in agent gets the note before its next model
 * request, and the step records it; a note that comes after the agent's last request waits for
 * the next step. The fake model holds its replies at gates the test opens: no sleeps.
 */
const WORKFLOW = `name: steered
description: A writer, then a reviewer.
roles:
  writer:
    goal: "Write the note. [[scenario:writer]]"
    frontmatter:
      type: object
      properties: { $status: { const: done } }
      required: [$status]
  reviewer:
    goal: "Review the note. [[scenario:reviewer]]"
    frontmatter:
      type: object
      properties: { $status: { const: done } }
      required: [$status]
graph:
  $START:
    new: { role: writer, prompt: "Write it." }
    resume: { role: writer, prompt: "Write it again." }
  writer:
    done: { role: reviewer, prompt: "Review it." }
  reviewer:
    done: { role: $END, prompt: "Finished." }
`;

const DONE = (who: string) => `---\n$status: done\n---\nThe ${who} is done.\n`;
const NOTE = "Keep the public API unchanged.";
const LATE = "Mention the changelog.";

let temp: TempHome;
let agent: AgentHome;
let fake: FakeLlm;
let home: string;
let repo: string;

beforeEach(async () => {
  temp = tempHome();
  agent = agentHome();
  fake = await startFakeLlm({
    script: {
      scenarios: {
        writer: [
          {
            text: "Writing.",
            // The built-in agent's tool, or Claude Code's: the first the request offers.
            tool: {
              write_file: { path: "NOTE.md", content: "hi\n" },
              Write: { file_path: "NOTE.md", content: "hi\n" },
            },
            gate: "tool",
          },
          { text: DONE("writer"), gate: "answer" },
          // Claude Code's turn for a note it read after its answer.
          { text: DONE("writer, steered twice") },
        ],
        reviewer: [{ text: DONE("reviewer") }],
      },
    },
  });
  home = join(temp.home, "uwf-home");
  repo = join(temp.home, "repo");
  mkdirSync(home);
  mkdirSync(repo);
  writeFileSync(join(temp.home, "steered.yaml"), WORKFLOW);
  const config = {
    providers: {
      chat: { api: "openai-chat", baseUrl: fake.baseUrl, apiKey: "fake-key" },
      anthropic: { api: "anthropic", baseUrl: fake.url, apiKey: "fake-key" },
    },
    models: {
      chat: { provider: "chat", name: "fake-model" },
      claude: { provider: "anthropic", name: "claude-fake" },
    },
    agents: {
      builtin: {
        command: join(REPO_ROOT, "packages/agent-builtin/bin/uwf-builtin.cjs"),
        model: "chat",
      },
      claude: {
        command: join(REPO_ROOT, "packages/agent-claude-code/bin/uwf-claude-code.cjs"),
        args: ["--max-retries", "0"],
        model: "claude",
      },
    },
    defaultAgent: "builtin",
    // Claude Code's adapter looks for notes while claude works: often, in a test.
    steer: { pollSeconds: 0.05 },
  };
  writeFileSync(join(home, "config.yaml"), stringifyYaml(config), { mode: 0o600 });
});

afterEach(async () => {
  await fake.close();
  agent.cleanup();
  temp.cleanup();
});

/** Claude Code's own HOME, and where the pinned claude is. */
const claudeEnv = () => ({ ...agent.env, UWF_CLAUDE_BIN: agentCliPath("claude") });

async function uwfJson<T>(args: string[]): Promise<T> {
  const run = await runUwf(["--format", "json", ...args], { home, cwd: repo, env: claudeEnv() });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T;
}

type Sent = { messages: { role: string; content: string | null }[] };
const userMessages = (n: number) =>
  (fake.requests()[n]!.body as Sent).messages.filter((m) => m.role === "user");

describe("thread steer while a step runs", () => {
  it("reaches the built-in agent before its next model request, once; a later note waits", async () => {
    const { thread } = await uwfJson<{ thread: string }>([
      "thread",
      "start",
      join(temp.home, "steered.yaml"),
      "-p",
      "Write a note.",
      "--cwd",
      repo,
    ]);
    const exec = startUwf(["thread", "exec", thread, "-c", "1"], { home, cwd: repo });

    // The model is asked once and holds its tool call: the agent is mid-run.
    await fake.held("tool");
    const steered = await uwfJson<{ guidance: { rev: number }[] }>([
      "thread",
      "steer",
      thread,
      "-p",
      NOTE,
    ]);
    fake.open("tool");
    // The agent's second request carries the note; it is held while a second steer comes:
    // the agent asks the model no more, so that note is for the next step.
    await fake.held("answer");
    await uwfJson(["thread", "steer", thread, "-p", LATE]);
    fake.open("answer");
    const ran = await exec.done;
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain("guidance delivered to uwf-builtin");

    const heading = "## Guidance from a human\n\n";
    expect(userMessages(0).map((m) => m.content)).not.toContainEqual(`${heading}${NOTE}`);
    expect(userMessages(1).at(-1)!.content).toBe(`${heading}${NOTE}`);

    // Only the late note still waits; the step's detail records the one delivered.
    const shown = await uwfJson<{ guidance?: { text: string }[] }>(["thread", "show", thread]);
    expect(shown.guidance?.map((note) => note.text)).toEqual([LATE]);
    const steps = await uwfJson<{ steps: { hash: string }[] }>(["step", "list", thread]);
    const step = await uwfJson<{ detail: string }>(["step", "show", steps.steps[0]!.hash]);
    const detail = await uwfJson<{ payload: { guidance: unknown[] } }>(["cas", "get", step.detail]);
    expect(detail.payload.guidance).toEqual([
      {
        text: NOTE,
        at: expect.any(String),
        rev: steered.guidance[0]!.rev,
        deliveredAt: expect.any(String),
        afterTurn: 1,
      },
    ]);
    const read = await runUwf(["thread", "read", thread], { home, cwd: repo });
    expect(read.stdout).toContain(`Guidance delivered while it ran`);
    expect(read.stdout).toContain(NOTE);
    const logs = join(home, "logs");
    const log = readdirSync(logs)
      .map((file) => readFileSync(join(logs, file), "utf8"))
      .join("");
    expect(log).toContain('"event":"agent.guidance.delivered"');

    // The next step takes the late note in its prompt, and not the delivered one.
    const next = await runUwf(["thread", "exec", thread, "-c", "1"], { home, cwd: repo });
    expect(next.code, next.stderr).toBe(0);
    const reviewer = userMessages(fake.requests().length - 1)
      .map((m) => m.content)
      .join("\n");
    expect(reviewer).toContain(`${heading.trimEnd()}\n${LATE}`);
    expect(reviewer).not.toContain(NOTE);
    expect(
      (await uwfJson<{ guidance?: unknown[] }>(["thread", "show", thread])).guidance,
    ).toBeUndefined();
  }, 120_000);

  it("reaches Claude Code through its stream-json input, mid-turn and after its answer", async () => {
    const { thread } = await uwfJson<{ thread: string }>([
      "thread",
      "start",
      join(temp.home, "steered.yaml"),
      "-p",
      "Write a note.",
      "--cwd",
      repo,
    ]);
    const exec = startUwf(["thread", "exec", thread, "-c", "1", "--agent", "claude"], {
      home,
      cwd: repo,
      env: claudeEnv(),
    });
    const delivered = (rev: number) => `guidance delivered to uwf-claude-code (note ${rev})`;

    // Claude holds for its model's tool call; the note is written to its stdin meanwhile.
    await fake.held("tool");
    const first = await uwfJson<{ guidance: { rev: number }[] }>([
      "thread",
      "steer",
      thread,
      "-p",
      NOTE,
    ]);
    await waitFor("the first note's delivery", () =>
      exec.stderr().includes(delivered(first.guidance[0]!.rev)),
    );
    fake.open("tool");
    // A note written while claude's answer is on its way gets a turn of its own after it.
    await fake.held("answer");
    const second = await uwfJson<{ guidance: { rev: number }[] }>([
      "thread",
      "steer",
      thread,
      "-p",
      LATE,
    ]);
    await waitFor("the second note's delivery", () =>
      exec.stderr().includes(delivered(second.guidance.at(-1)!.rev)),
    );
    fake.open("answer");
    const ran = await exec.done;
    expect(ran.code, ran.stderr).toBe(0);

    const bodies = fake
      .requests()
      .filter((r) => r.url.startsWith("/v1/messages") && !r.url.includes("count_tokens"))
      .map((r) => JSON.stringify(r.body));
    const heading = "## Guidance from a human\\n\\n";
    const mid = bodies.findIndex((body) => body.includes(`${heading}${NOTE}`));
    const late = bodies.findIndex((body) => body.includes(`${heading}${LATE}`));
    expect(mid).toBeGreaterThan(0);
    expect(late).toBeGreaterThan(mid);
    expect(await uwfJson<{ guidance?: unknown[] }>(["thread", "show", thread])).not.toHaveProperty(
      "guidance",
    );
    const read = await runUwf(["thread", "read", thread], { home, cwd: repo });
    expect(read.stdout).toContain("The writer, steered twice is done.");
    expect(read.stdout.match(/Guidance delivered while it ran/g)).toHaveLength(2);
  }, 180_000);
});
