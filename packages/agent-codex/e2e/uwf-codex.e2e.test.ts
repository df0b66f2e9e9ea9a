import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import {
  type AgentHome,
  agentCliPath,
  agentHome,
  type FakeLlm,
  type FakeLlmScript,
  type FakeStep,
  openHomeStore,
  REPO_ROOT,
  type RunResult,
  runBin,
  runUwf,
  startFakeLlm,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

/**
 * uwf-codex end to end: the built `uwf` runs the built `uwf-codex`, which drives the pinned
 * real codex CLI; only the model is replaced, by the fake on 127.0.0.1.
 */

const UWF_CODEX_BIN = join(REPO_ROOT, "packages/agent-codex/bin/uwf-codex.cjs");
let codex: string;

beforeAll(() => {
  if (!existsSync(join(REPO_ROOT, "packages/agent-codex/dist/bundle/main.cjs"))) {
    throw new Error("packages/agent-codex/dist/bundle is missing: run `pnpm build` first");
  }
  codex = agentCliPath("codex");
});

interface Setup {
  uwfHome: TempHome;
  agent: AgentHome;
  codexHome: string;
  /** The thread's cwd: a git repository the agent works in. */
  repo: string;
  fake: FakeLlm;
}

let setup: Setup;
beforeEach(async () => {
  const uwfHome = tempHome();
  const agent = agentHome();
  const codexHome = join(agent.home, ".codex");
  mkdirSync(codexHome);
  const repo = join(uwfHome.home, "repo");
  mkdirSync(repo);
  execFileSync("git", ["init", "-q"], { cwd: repo });
  setup = { uwfHome, agent, codexHome, repo, fake: await startFakeLlm() };
});
afterEach(async () => {
  await setup.fake.close();
  setup.agent.cleanup();
  setup.uwfHome.cleanup();
});

/** config.yaml: the fake as an OpenAI Responses provider, and the codex agent using it. */
function configure(
  agent: { timeoutSeconds?: number; args?: string[] } = {},
  extra: Record<string, unknown> = {},
): void {
  const config = {
    providers: {
      fake: { api: "openai-responses", baseUrl: setup.fake.baseUrl, apiKey: "fake-key" },
    },
    models: { fake: { provider: "fake", name: "gpt-5.5" } },
    agents: {
      codex: {
        command: UWF_CODEX_BIN,
        args: ["--codex-bin", codex, ...(agent.args ?? [])],
        // uwf passes it to the adapter as `--model fake`.
        model: "fake",
        ...(agent.timeoutSeconds ? { timeoutSeconds: agent.timeoutSeconds } : {}),
      },
    },
    defaultAgent: "codex",
    ...extra,
  };
  // JSON is YAML.
  writeFileSync(join(setup.uwfHome.home, "config.yaml"), JSON.stringify(config), { mode: 0o600 });
}

/**
 * A writer and a reviewer that may send the writer back. Each role's goal names its fake
 * scenario, so the fake answers each role (and each role's resumed session) from its own list.
 */
function writeWorkflow(): string {
  const workflow = {
    name: "write-review",
    roles: {
      writer: {
        goal: "Write the file the task asks for. [[scenario:writer]]",
        frontmatter: {
          type: "object",
          properties: { $status: { const: "done" }, file: { type: "string" } },
          required: ["$status", "file"],
        },
      },
      reviewer: {
        goal: "Review the file. [[scenario:reviewer]]",
        frontmatter: {
          type: "object",
          properties: { $status: { enum: ["approved", "rejected"] }, note: { type: "string" } },
          required: ["$status"],
        },
      },
    },
    graph: {
      $START: {
        new: { role: "writer", prompt: "Write it." },
        resume: { role: "writer", prompt: "Write it again." },
      },
      writer: { done: { role: "reviewer", prompt: "Review {{{file}}}." } },
      reviewer: {
        approved: { role: "$END", prompt: "Done." },
        rejected: { role: "writer", prompt: "Fix it: {{{note}}}" },
      },
    },
  };
  const path = join(setup.uwfHome.home, "write-review.yaml");
  writeFileSync(path, JSON.stringify(workflow, null, 2));
  return path;
}

function script(scenarios: Record<string, FakeStep[]>): void {
  setup.fake.setScript({ scenarios } satisfies FakeLlmScript);
}

const env = (): Record<string, string> => ({ ...setup.agent.env, CODEX_HOME: setup.codexHome });

function uwf(args: string[]): Promise<RunResult> {
  return runUwf(args, { home: setup.uwfHome.home, cwd: setup.repo, env: env() });
}

async function uwfJson<T>(args: string[]): Promise<T> {
  const result = await uwf([...args, "--format", "json"]);
  if (result.code !== 0) {
    throw new Error(`uwf ${args.join(" ")} exited ${result.code}\n${result.stderr}`);
  }
  return JSON.parse(result.stdout) as T;
}

async function startThread(task = "Write hello.txt."): Promise<string> {
  const doc = await uwfJson<{ thread: string }>([
    "thread",
    "start",
    writeWorkflow(),
    "-p",
    task,
    "--cwd",
    setup.repo,
  ]);
  return doc.thread;
}

interface StepListDoc {
  steps: {
    hash: string;
    role: string;
    status: string;
    agent: string;
    usage: Record<string, number | null>;
  }[];
}

interface ThreadDoc {
  status: string;
  suspended: { role: string; reason: string; kind: string } | null;
}

/** The step's detail node: the codex session it ran in and its turns. */
interface TurnDoc {
  text: string;
  toolCalls: { name: string; input: unknown; output?: string; isError?: boolean }[];
}

interface DetailDoc {
  sessionId: string | null;
  model: string | null;
  turns: TurnDoc[];
  attempts: { kind: string; valid: boolean }[];
}

async function detailOf(stepHash: string): Promise<DetailDoc> {
  const store = await openHomeStore(setup.uwfHome.home);
  try {
    const step = await store.cas.getPayload<{ detail: string }>(stepHash, "step");
    const detail = (await store.cas.get(step.detail)).payload as Omit<DetailDoc, "turns"> & {
      turns: string[];
    };
    const turns: TurnDoc[] = [];
    for (const hash of detail.turns)
      turns.push((await store.cas.get(hash)).payload as unknown as TurnDoc);
    return { ...detail, turns };
  } finally {
    await store.close();
  }
}

/** The `input` items of a Responses request, as `role:type` plus their text. */
function inputOf(n: number): { kind: string; text: string }[] {
  const request = setup.fake.requests()[n];
  const body = request?.body as { input?: Record<string, unknown>[] } | undefined;
  return (body?.input ?? []).map((item) => ({
    kind: `${String(item.role ?? "")}:${String(item.type)}`,
    text: JSON.stringify(item),
  }));
}

const answer = (frontmatter: string, body = "ok"): FakeStep => ({
  text: `---\n${frontmatter}\n---\n${body}\n`,
});

describe("uwf-codex with the real codex CLI", () => {
  it("runs a two-role workflow; a revisited role resumes its codex session and can still write", async () => {
    configure();
    script({
      writer: [
        {
          text: "Writing hello.txt.",
          tool: {
            apply_patch: "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n",
          },
        },
        answer("$status: done\nfile: hello.txt", "Wrote hello.txt."),
        // The second visit, in the same codex session: a shell command appends a line.
        { tool: { exec_command: { cmd: "echo second line >> hello.txt" } } },
        answer("$status: done\nfile: hello.txt", "Added the line."),
      ],
      reviewer: [
        answer('$status: rejected\nnote: "add a second line"'),
        answer("$status: approved"),
      ],
    });
    const thread = await startThread();

    const exec = await uwf(["thread", "exec", thread, "-c", "10"]);
    expect(exec.stderr).toContain("uwf-codex: changed: add hello.txt");
    expect(exec.stderr).toContain("uwf-codex: resuming codex session");
    expect(exec.code).toBe(0);
    expect((await uwfJson<ThreadDoc>(["thread", "show", thread])).status).toBe("completed");

    // Written by codex's own tools: apply_patch on the first visit, a command on the second.
    expect(readFileSync(join(setup.repo, "hello.txt"), "utf8")).toBe("hello\nsecond line\n");

    const { steps } = await uwfJson<StepListDoc>(["step", "list", thread]);
    expect(steps.map((s) => `${s.role}:${s.status}`)).toEqual([
      "writer:done",
      "reviewer:rejected",
      "writer:done",
      "reviewer:approved",
    ]);
    expect(steps.every((s) => s.agent === "uwf-codex")).toBe(true);
    // The fake reports 10 input and 5 output tokens per request. A resumed run counts only its
    // own requests, though codex reports the session's totals.
    expect(steps.map((s) => [s.usage.inputTokens, s.usage.outputTokens])).toEqual([
      [20, 10],
      [10, 5],
      [20, 10],
      [10, 5],
    ]);
    expect(steps[0]?.usage.cacheReadTokens).toBe(0);

    const writer1 = await detailOf(steps[0]!.hash);
    const writer2 = await detailOf(steps[2]!.hash);
    const reviewer1 = await detailOf(steps[1]!.hash);
    const reviewer2 = await detailOf(steps[3]!.hash);
    expect(writer1.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(writer2.sessionId).toBe(writer1.sessionId);
    expect(reviewer2.sessionId).toBe(reviewer1.sessionId);
    expect(reviewer1.sessionId).not.toBe(writer1.sessionId);
    expect(writer1.model).toBe("gpt-5.5");
    expect(writer1.turns[0]?.text).toBe("Writing hello.txt.");
    expect(writer1.turns[0]?.toolCalls).toEqual([
      {
        name: "file_change",
        input: { changes: [{ path: "hello.txt", kind: "add" }] },
        output: "completed",
        isError: false,
      },
    ]);
    expect(writer2.turns[0]?.toolCalls[0]).toMatchObject({
      name: "command",
      input: { command: expect.stringContaining("echo second line >> hello.txt") },
      isError: false,
    });

    // The writer's second visit sent codex's first exchange again: the first prompt, the
    // patch it applied and its answer, then the new prompt with the reviewer's note.
    const requests = setup.fake.requests();
    const writerSecond = requests.findIndex(
      (r) => r.served.scenario === "writer" && r.served.turn === 2,
    );
    expect(writerSecond).toBeGreaterThan(0);
    const kinds = inputOf(writerSecond).map((item) => item.kind);
    expect(kinds).toEqual(expect.arrayContaining([":custom_tool_call", "assistant:message"]));
    const texts = inputOf(writerSecond).map((item) => item.text);
    const firstPrompt = texts.findIndex((t) => t.includes("Write it."));
    const secondPrompt = texts.findIndex((t) => t.includes("Fix it: add a second line"));
    expect(firstPrompt).toBeGreaterThanOrEqual(0);
    expect(secondPrompt).toBeGreaterThan(firstPrompt);
    expect(texts.some((t) => t.includes("Wrote hello.txt."))).toBe(true);
  });

  it("starts a new codex session when codex no longer has the role's one", async () => {
    configure();
    script({
      writer: [answer("$status: done\nfile: a.txt")],
      reviewer: [answer('$status: rejected\nnote: "again"'), answer("$status: approved")],
    });
    const thread = await startThread();
    expect((await uwf(["thread", "exec", thread, "-c", "2"])).code).toBe(0);
    const before = (await uwfJson<StepListDoc>(["step", "list", thread])).steps;
    const writerSession = (await detailOf(before[0]!.hash)).sessionId;
    const rollouts = findFiles(join(setup.codexHome, "sessions"), `-${writerSession}.jsonl`);
    expect(rollouts).toHaveLength(1);
    rmSync(rollouts[0]!);

    const exec = await uwf(["thread", "exec", thread, "-c", "5"]);
    expect(exec.stderr).toContain(
      `uwf-codex: codex session ${writerSession} is not in ${setup.codexHome} any more; starting a new session`,
    );
    expect(exec.code).toBe(0);
    const { steps } = await uwfJson<StepListDoc>(["step", "list", thread]);
    expect(steps.map((s) => `${s.role}:${s.status}`)).toEqual([
      "writer:done",
      "reviewer:rejected",
      "writer:done",
      "reviewer:approved",
    ]);
    const writer2 = await detailOf(steps[2]!.hash);
    expect(writer2.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(writer2.sessionId).not.toBe(writerSession);
  });

  it("gives codex a prompt larger than one argument may be, on stdin", async () => {
    configure();
    script({ writer: [answer("$status: done\nfile: big.txt")] });
    // Linux caps one argument at 128 KiB; the task is part of the prompt codex gets.
    const task = `${"Read this carefully. ".repeat(10_000)}END-OF-BIG-TASK`;
    const taskFile = join(setup.uwfHome.home, "task.txt");
    writeFileSync(taskFile, task);
    const started = await uwfJson<{ thread: string }>([
      "thread",
      "start",
      writeWorkflow(),
      "--prompt-file",
      taskFile,
      "--cwd",
      setup.repo,
    ]);
    const exec = await uwf(["thread", "exec", started.thread, "-c", "1"]);
    expect(exec.code).toBe(0);
    const body = JSON.stringify(setup.fake.requests()[0]?.body);
    expect(task.length).toBeGreaterThan(128 * 1024);
    expect(body).toContain(JSON.stringify(task).slice(1, -1));
  });

  it("repairs a reply without frontmatter in the same codex session", async () => {
    configure();
    script({
      writer: [{ text: "I wrote the file, no frontmatter." }, answer("$status: done\nfile: a.txt")],
      reviewer: [answer("$status: approved")],
    });
    const thread = await startThread();
    const exec = await uwf(["thread", "exec", thread, "-c", "1"]);
    expect(exec.stderr).toContain("output invalid (attempt 1 of 3)");
    expect(exec.code).toBe(0);

    const { steps } = await uwfJson<StepListDoc>(["step", "list", thread]);
    expect(steps.map((s) => `${s.role}:${s.status}`)).toEqual(["writer:done"]);
    const detail = await detailOf(steps[0]!.hash);
    expect(detail.attempts.map((a) => [a.kind, a.valid])).toEqual([
      ["run", false],
      ["continue", true],
    ]);
    // The correction went into the same session: its request carries the first answer.
    const [first, second] = setup.fake.requests();
    expect(first?.headers["session-id"]).toBeDefined();
    expect(second?.headers["session-id"]).toBe(first?.headers["session-id"]);
    const texts = inputOf(1).map((item) => item.text);
    const firstAnswer = texts.findIndex((t) => t.includes("I wrote the file, no frontmatter."));
    const correction = texts.findIndex((t) => t.includes("frontmatter"));
    expect(firstAnswer).toBeGreaterThanOrEqual(0);
    expect(texts.slice(firstAnswer + 1).some((t) => t.includes("$status"))).toBe(true);
    expect(correction).toBeGreaterThanOrEqual(0);
    // Both attempts add up: 10 + 10 input tokens.
    expect(steps[0]?.usage.inputTokens).toBe(20);
  });

  it("sends the provider's key to the model's server, never to the model's commands or a file", async () => {
    configure();
    // Codex deletes its shell snapshots when the session ends: the command copies them.
    const cmd = 'env > envdump.txt; cat "$CODEX_HOME"/shell_snapshots/*.sh > snapshots.txt';
    script({
      writer: [{ tool: { exec_command: { cmd } } }, answer("$status: done\nfile: envdump.txt")],
    });
    const thread = await startThread();
    const exec = await uwf(["thread", "exec", thread, "-c", "1"]);
    expect(exec.code).toBe(0);

    expect(setup.fake.requests()[0]?.headers.authorization).toBe("Bearer fake-key");
    // The command ran with the user's environment, but not the key.
    const dump = readFileSync(join(setup.repo, "envdump.txt"), "utf8");
    expect(dump).toContain(`HOME=${setup.agent.home}`);
    expect(dump).not.toContain("fake-key");
    const snapshots = readFileSync(join(setup.repo, "snapshots.txt"), "utf8");
    expect(snapshots).toContain("declare -x HOME=");
    expect(snapshots).not.toContain("fake-key");
    // Nor is it in any file codex or uwf left behind, but config.yaml and its parsed copy (0600).
    const written = [setup.agent.home, setup.uwfHome.home].flatMap((dir) =>
      readdirSync(dir, { recursive: true, encoding: "utf8" })
        .map((name) => join(dir, name))
        .filter(
          (path) => statSync(path).isFile() && !/(config\.yaml|cache\/config\.json)$/.test(path),
        )
        .filter((path) => readFileSync(path, "utf8").includes("fake-key")),
    );
    expect(written).toEqual([]);
  });

  it("masks the key in a model error that echoes it", async () => {
    configure({}, { retry: { maxRetries: 0 } });
    script({ writer: [{ error: { status: 401, message: "bad key Bearer fake-key" } }] });
    const thread = await startThread();
    const exec = await uwf(["thread", "exec", thread]);
    expect(exec.code).toBe(4);
    expect(exec.stderr).toContain("401 Unauthorized: bad key Bearer ****");
    expect(exec.stderr).not.toContain("fake-key");
    const show = await uwfJson<ThreadDoc>(["thread", "show", thread]);
    expect(show.suspended?.reason).toContain("bad key Bearer ****");
    expect(show.suspended?.reason).not.toContain("fake-key");
  });

  it("suspends the thread after one request on an HTTP 500, retries being off", async () => {
    // uwf's own retries of a transient failure (adapter exit 75) off too.
    configure({}, { retry: { maxRetries: 0 } });
    script({ writer: [{ error: { status: 500, message: "server exploded" } }] });
    const thread = await startThread();
    const exec = await uwf(["thread", "exec", thread]);
    expect(exec.code).toBe(4);
    const show = await uwfJson<ThreadDoc>(["thread", "show", thread]);
    expect(show.status).toBe("suspended");
    // Codex's own message for a 500 ("high demand") hides the status; the adapter names it.
    expect(show.suspended?.reason).toContain("codex failed:");
    expect(show.suspended?.reason).toContain(
      "(HTTP 500 Internal Server Error from the model's server)",
    );
    expect(setup.fake.requests()).toHaveLength(1);
    // A 5xx passes by itself: uwf-codex exits 75 and the thread waits for its retry time.
    expect(show.suspended?.kind).toBe("retry");
  });
});

describe("uwf-codex --version", () => {
  it("names the adapter's version and the codex it runs", async () => {
    const found = await runBin(UWF_CODEX_BIN, ["--version", "--codex-bin", codex]);
    expect(found.stdout).toMatch(/^uwf-codex \d+\.\d+\.\d+\ncodex-cli 0\.169\.0\n$/);
    expect(found.code).toBe(0);
  });

  it("says how to install codex when it is not found", async () => {
    const missing = await runBin(UWF_CODEX_BIN, ["--version"], {
      env: { PATH: "/usr/bin:/bin", UWF_CODEX_BIN: "no-such-codex" },
    });
    expect(missing.stdout).toContain('"no-such-codex" not found in PATH');
    expect(missing.stdout).toContain("npm install -g @openai/codex");
    expect(missing.code).toBe(1);
  });
});

/** Files under `dir` (at any depth) whose name ends with `suffix`. */
function findFiles(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(suffix))
    .map((name) => join(dir, name));
}
