import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { StepPayload } from "@united-workforce/protocol";
import {
  answer,
  CONFORMANCE_WORKFLOW,
  type FakeLlm,
  type FakeStep,
  openHomeStore,
  REPO_ROOT,
  runBin,
  runUwf,
  startFakeLlm,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

const BUILTIN_BIN = join(REPO_ROOT, "packages/agent-builtin/bin/uwf-builtin.cjs");

const WORKFLOW = {
  name: "feature",
  description: "Plan a change, then make it, with the built-in agent.",
  roles: {
    planner: {
      goal: "Write the plan to PLAN.md. [[scenario:planner]]",
      frontmatter: {
        type: "object",
        properties: { $status: { const: "planned" }, plan: { type: "string" } },
        required: ["$status", "plan"],
      },
    },
    developer: {
      goal: "Implement the plan. [[scenario:developer]]",
      frontmatter: {
        type: "object",
        properties: { $status: { const: "done" }, files: { type: "string" } },
        required: ["$status", "files"],
      },
    },
  },
  graph: {
    $START: {
      new: { role: "planner", prompt: "Plan the feature." },
      resume: { role: "planner", prompt: "Plan it again." },
    },
    planner: { planned: { role: "developer", prompt: "Implement: {{{plan}}}" } },
    developer: { done: { role: "$END", prompt: "Done: {{{files}}}" } },
  },
};

const GREET = 'export const greet = (name) => "Hello, " + name;\n';

/** YAML is a superset of JSON: the files uwf reads as YAML are written as JSON. */
const toYaml = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

let temp: TempHome;
let llm: FakeLlm;
let repo: string;
// Without the NODE_PATH `pnpm exec` sets, which would let the bundle find modules that its
// package does not declare: the adapter must run as it does after install.
const uwf = (...args: string[]) =>
  runUwf(args, { home: temp.home, cwd: repo, env: { NODE_PATH: undefined } });

beforeAll(() => {
  if (!existsSync(join(REPO_ROOT, "packages/agent-builtin/dist/bundle/main.cjs"))) {
    throw new Error("packages/agent-builtin/dist/bundle is missing: run `pnpm build` first");
  }
});
beforeEach(async () => {
  temp = tempHome();
  llm = await startFakeLlm();
  repo = join(temp.home, "repo");
  mkdirSync(repo);
  execFileSync("git", ["init", "-q"], { cwd: repo });
  writeFileSync(join(temp.home, "feature.yaml"), toYaml(WORKFLOW));
});
afterEach(async () => {
  await llm.close();
  temp.cleanup();
});

/** config.yaml with the fake provider, its model, and the builtin agent as the default. */
function configure(
  args: string[] = ["--model", "fake"],
  extra: Record<string, unknown> = {},
): void {
  const config = {
    providers: { fake: { baseUrl: llm.baseUrl, apiKey: "sk-fake-key" } },
    models: { fake: { provider: "fake", name: "fake-model" } },
    agents: { builtin: { command: BUILTIN_BIN, args } },
    defaultAgent: "builtin",
    ...extra,
  };
  writeFileSync(join(temp.home, "config.yaml"), toYaml(config), { mode: 0o600 });
}

async function startThread(): Promise<string> {
  expect((await uwf("workflow", "add", join(temp.home, "feature.yaml"))).code).toBe(0);
  const started = await uwf(
    "thread",
    "start",
    "feature",
    "-p",
    "Add a greet() helper.",
    "--cwd",
    repo,
  );
  expect(started.code).toBe(0);
  return started.stdout.trim();
}

async function show(thread: string) {
  return JSON.parse((await uwf("thread", "show", thread, "--format", "json")).stdout) as {
    status: string;
    steps: number;
    suspended: { role: string; reason: string; kind?: string; retryAfter?: string } | null;
  };
}

const planned = "---\n$status: planned\nplan: add src/greet.js\n---\nThe plan is in PLAN.md.\n";
const done = "---\n$status: done\nfiles: src/greet.js\n---\nImplemented and staged.\n";

describe("uwf-builtin with uwf and a model", () => {
  it("runs a two-role workflow, its tools really writing files in the repository", async () => {
    configure();
    llm.setScript({
      scenarios: {
        planner: [
          { tool: { write_file: { path: "PLAN.md", content: "1. Add src/greet.js\n" } } },
          { text: planned },
        ],
        developer: [
          { tool: { read_file: { path: "PLAN.md" } } },
          { tool: { write_file: { path: "src/greet.js", content: GREET } } },
          { tool: { run_command: { argv: ["git", "add", "src/greet.js"] } } },
          { text: done },
        ],
      },
    });
    const thread = await startThread();
    const exec = await uwf("thread", "exec", thread, "-c", "5");
    expect(exec.stderr).toContain("uwf-builtin: write_file PLAN.md\n");
    expect(exec.stderr).toContain("uwf-builtin: run_command git add src/greet.js\n");
    expect(exec.code).toBe(0);
    expect(await show(thread)).toMatchObject({ status: "completed", steps: 2 });

    expect(readFileSync(join(repo, "PLAN.md"), "utf8")).toBe("1. Add src/greet.js\n");
    expect(readFileSync(join(repo, "src/greet.js"), "utf8")).toBe(GREET);
    const status = execFileSync("git", ["status", "--porcelain"], { cwd: repo, encoding: "utf8" });
    expect(status).toBe("A  src/greet.js\n?? PLAN.md\n");

    const steps = JSON.parse((await uwf("step", "list", thread, "--format", "json")).stdout) as {
      steps: { role: string; status: string; agent: string; usage: Record<string, unknown> }[];
    };
    expect(steps.steps).toEqual([
      expect.objectContaining({
        role: "planner",
        status: "planned",
        agent: "uwf-builtin",
        usage: expect.objectContaining({
          inputTokens: 20,
          outputTokens: 10,
          turns: 2,
          cacheReadTokens: null,
        }),
      }),
      expect.objectContaining({
        role: "developer",
        status: "done",
        agent: "uwf-builtin",
        usage: expect.objectContaining({ inputTokens: 40, outputTokens: 20, turns: 4 }),
      }),
    ]);

    // The developer's model saw the task, the planner's work and the moderator's instruction,
    // and got the read_file result back.
    const requests = llm
      .requests()
      .map((r) => r.body as { model: string; messages: { role: string; content: string }[] });
    expect(requests).toHaveLength(6);
    expect(llm.requests()[0]!.headers.authorization).toBe("Bearer sk-fake-key");
    const developer = requests[2]!;
    expect(developer.model).toBe("fake-model");
    expect(developer.messages[0]!.role).toBe("system");
    expect(developer.messages[0]!.content).toContain(`Your working directory is ${repo}.`);
    expect(developer.messages[1]!.role).toBe("user");
    expect(developer.messages[1]!.content).toContain("Add a greet() helper.");
    expect(developer.messages[1]!.content).toContain("Implement: add src/greet.js");
    expect(requests[3]!.messages.at(-1)).toMatchObject({
      role: "tool",
      content: "1. Add src/greet.js\n",
    });

    // Every turn is stored with the step: its text, tool calls (input, output) and usage.
    const list = JSON.parse((await uwf("step", "list", thread, "--format", "json")).stdout) as {
      steps: { hash: string }[];
    };
    const store = await openHomeStore(temp.home);
    try {
      const { cas } = store;
      const step = await cas.getPayload<StepPayload>(list.steps[1]!.hash, "step");
      const detail = await cas.getPayload<{ model: string; sessionId: string; turns: string[] }>(
        step.detail,
        "stepDetail",
      );
      expect(detail.model).toBe("fake-model");
      expect(detail.sessionId).toMatch(/^builtin-[0-9A-Z]{26}$/);
      const turns = await Promise.all(detail.turns.map((hash) => cas.getPayload(hash, "turn")));
      expect(turns).toHaveLength(4);
      expect(turns[1]).toEqual({
        text: "",
        toolCalls: [
          {
            name: "write_file",
            input: { path: "src/greet.js", content: GREET },
            output: `wrote ${GREET.length} bytes to src/greet.js`,
            isError: false,
          },
        ],
        usage: { inputTokens: 10, outputTokens: 5 },
      });
      expect(turns[3]).toMatchObject({ text: done, toolCalls: [] });
    } finally {
      await store.close();
    }
    const read = await uwf("thread", "read", thread);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain("Implemented and staged.");
  });

  it("repairs a reply without frontmatter in the same conversation", async () => {
    configure();
    llm.setScript({
      scenarios: {
        planner: [{ text: "I wrote the plan, it is fine." }, { text: planned }],
        developer: [{ text: done }],
      },
    });
    const thread = await startThread();
    const exec = await uwf("thread", "exec", thread, "-c", "5");
    expect(exec.stderr).toContain("output invalid (attempt 1 of 3)");
    expect(exec.code).toBe(0);
    expect(await show(thread)).toMatchObject({ status: "completed", steps: 2 });
    const correction = llm.requests()[1]!.body as { messages: { role: string; content: string }[] };
    expect(correction.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(correction.messages[2]!.content).toBe("I wrote the plan, it is fine.");
    const steps = JSON.parse((await uwf("step", "list", thread, "--format", "json")).stdout) as {
      steps: { usage: { turns: number; inputTokens: number } }[];
    };
    expect(steps.steps[0]!.usage).toMatchObject({ turns: 2, inputTokens: 20 });
  });

  describe("a role revisited", () => {
    async function startRevisit(): Promise<string> {
      writeFileSync(join(temp.home, "conformance.yaml"), CONFORMANCE_WORKFLOW);
      const started = await uwf(
        "thread",
        "start",
        join(temp.home, "conformance.yaml"),
        "-p",
        "Plan and check.",
        "--cwd",
        repo,
      );
      return started.stdout.trim();
    }
    const requestsAt = (turn: number) =>
      llm
        .requests()
        .filter((r) => r.served.turn === turn)
        .map((r) => JSON.stringify(r.body));

    it("continues its own conversation, tool calls and results included", async () => {
      configure();
      llm.setScript({
        steps: [
          { tool: { write_file: { path: "notes.md", content: "v1" } } },
          { text: answer("next", "planned") },
          { text: answer("finish", "checked") },
        ],
      });
      const thread = await startRevisit();
      const exec = await uwf("thread", "exec", thread, "-c", "5");
      expect(exec.code).toBe(0);
      expect(exec.stderr).toMatch(
        /uwf-builtin: model fake \(fake-model at .*\), resuming session builtin-/,
      );
      expect(await show(thread)).toMatchObject({ status: "completed", steps: 3 });
      // The planner's revisit is its conversation's third turn: it carries the first visit.
      const [revisit] = requestsAt(2);
      expect(revisit).toContain("wrote 2 bytes to notes.md");
      expect(revisit).toContain("planned");
      const store = await openHomeStore(temp.home);
      try {
        const list = JSON.parse((await uwf("step", "list", thread, "--format", "json")).stdout) as {
          steps: { hash: string }[];
        };
        const sessions = await Promise.all(
          list.steps.map(async ({ hash }) => {
            const step = await store.cas.getPayload<StepPayload>(hash, "step");
            return (await store.cas.getPayload<{ sessionId: string }>(step.detail, "stepDetail"))
              .sessionId;
          }),
        );
        expect(sessions[2]).toBe(sessions[0]);
        expect(sessions[1]).not.toBe(sessions[0]);
      } finally {
        await store.close();
      }
    });

    it("starts afresh when its conversation is too long to send again", async () => {
      configure();
      llm.setScript({
        steps: [
          { tool: { write_file: { path: "big.txt", content: "x".repeat(210_000) } } },
          { text: answer("next", "planned") },
        ],
      });
      const thread = await startRevisit();
      const exec = await uwf("thread", "exec", thread, "-c", "3");
      expect(exec.code).toBe(0);
      expect(exec.stderr).toMatch(
        /not resuming session builtin-\S+: its conversation is over 200000 characters/,
      );
      // Three visits, each a fresh conversation starting at turn 0.
      expect(requestsAt(0)).toHaveLength(3);
    });
  });

  it("suspends the thread when the provider answers HTTP 400, without retrying", async () => {
    configure();
    llm.setScript({
      steps: [{ error: { status: 400, message: "this model does not support tools" } }],
    });
    const thread = await startThread();
    const exec = await uwf("thread", "exec", thread);
    expect(exec.code).toBe(4);
    expect(llm.requests()).toHaveLength(1);
    const shown = await show(thread);
    expect(shown).toMatchObject({ status: "suspended", steps: 0 });
    expect(shown.suspended!.reason).toContain(
      `model "fake-model" at ${llm.baseUrl}/chat/completions answered HTTP 400: this model does not support tools`,
    );
    expect(exec.stdout + exec.stderr).not.toContain("sk-fake-key");
  });

  it("masks the key in a provider error that echoes it, wherever the error goes", async () => {
    const key = "sk-oai-secret-4f9c2a7b1e";
    // A server that echoes the Authorization header: a 503 first (retried, so it is in a
    // progress line), then a 401.
    let requests = 0;
    const echo = createServer((req, res) => {
      req.resume();
      requests++;
      const status = requests === 1 ? 503 : 401;
      res.writeHead(status, { "content-type": "text/plain", "retry-after-ms": "0" });
      res.end(`bad key ${req.headers.authorization}`);
    });
    await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = echo.address() as AddressInfo;
      const config = {
        providers: { echo: { baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: key } },
        models: { echo: { provider: "echo", name: "echo-model" } },
        agents: { builtin: { command: BUILTIN_BIN, args: ["--model", "echo", "--retries", "2"] } },
        defaultAgent: "builtin",
        retry: { maxRetries: 0 },
      };
      writeFileSync(join(temp.home, "config.yaml"), toYaml(config), { mode: 0o600 });
      const thread = await startThread();
      const exec = await uwf("thread", "exec", thread);
      expect(exec.code).toBe(4);
      expect(requests).toBe(2);
      expect(exec.stderr).toContain("HTTP 503: bad key Bearer ****; retrying");
      expect(exec.stderr).toContain("answered HTTP 401: bad key Bearer ****");
      expect(exec.stdout + exec.stderr).not.toContain(key);
      const shown = await show(thread);
      expect(shown.suspended!.reason).toContain("answered HTTP 401: bad key Bearer ****");
      // Nor in the thread's pointer, the logs or the store: only config.yaml (and its parsed
      // copy, mode 0600) holds it.
      const holding = readdirSync(temp.home, { recursive: true, encoding: "utf8" })
        .map((name) => join(temp.home, name))
        .filter(
          (path) => statSync(path).isFile() && !/(config\.yaml|cache\/config\.json)$/.test(path),
        )
        .filter((path) => readFileSync(path, "utf8").includes(key));
      expect(holding).toEqual([]);
      expect(readdirSync(join(temp.home, "logs")).length).toBeGreaterThan(0);
    } finally {
      await new Promise((resolve) => echo.close(resolve));
    }
  });

  it("retries 500s as the provider asks, then suspends the thread until it may retry", async () => {
    // uwf's own retries of a transient failure (adapter exit 75) off: this is the client's.
    configure(["--model", "fake", "--retries", "2"], { retry: { maxRetries: 0 } });
    const overloaded: FakeStep = {
      error: { status: 500, message: "overloaded", headers: { "retry-after-ms": "10" } },
    };
    llm.setScript({ steps: [overloaded] });
    const thread = await startThread();
    const exec = await uwf("thread", "exec", thread);
    expect(exec.code).toBe(4);
    expect(llm.requests()).toHaveLength(3);
    expect(exec.stderr).toContain(
      "uwf-builtin: model: HTTP 500: overloaded; retrying in 0.0 s (try 2 of 3)\n",
    );
    expect(exec.stderr).toContain("(try 3 of 3)");
    const shown = await show(thread);
    expect(shown.status).toBe("suspended");
    expect(shown.suspended!.reason).toContain("answered HTTP 500: overloaded (after 3 tries)");
    // A 5xx passes by itself: the adapter exits 75, and the thread waits for its retry time.
    expect(shown.suspended!.kind).toBe("retry");
    expect(Date.parse(shown.suspended!.retryAfter ?? "")).toBeGreaterThan(Date.now() - 60_000);
  });

  it("suspends the thread when the model hangs past the request timeout", async () => {
    configure(["--model", "fake", "--request-timeout", "1"]);
    llm.setScript({ steps: [{ text: planned, delay_ms: 60_000 }] });
    const thread = await startThread();
    const exec = await uwf("thread", "exec", thread);
    expect(exec.code).toBe(4);
    expect(llm.requests()).toHaveLength(1);
    const shown = await show(thread);
    expect(shown.status).toBe("suspended");
    expect(shown.suspended!.reason).toContain("did not answer within 1000 ms");
  });

  it("names what to set when no model is configured", async () => {
    configure([]);
    const thread = await startThread();
    const exec = await uwf("thread", "exec", thread);
    expect(exec.code).toBe(4);
    expect((await show(thread)).suspended!.reason).toContain(
      "uwf-builtin has no model to talk to: pass --model <alias>, or set defaultModel in $UWF_HOME/config.yaml",
    );
    expect(llm.requests()).toHaveLength(0);
  });

  it("refuses a model whose provider speaks another API, naming it", async () => {
    configure(["--model", "fake"], {
      providers: { fake: { api: "anthropic", baseUrl: llm.url, apiKey: "sk-fake-key" } },
    });
    const thread = await startThread();
    const exec = await uwf("thread", "exec", thread);
    expect(exec.code).toBe(4);
    expect((await show(thread)).suspended!.reason).toContain(
      'uwf-builtin speaks OpenAI chat completions, but model "fake" is served by provider "fake" with api: anthropic',
    );
    expect(llm.requests()).toHaveLength(0);
  });

  it("takes the model from defaultModel, and runs the hello example", async () => {
    configure([], { defaultModel: "fake" });
    llm.setScript({
      steps: [{ text: "---\n$status: done\ngreeting: Hello, Ada!\n---\nHello, Ada!\n" }],
    });
    expect((await uwf("workflow", "add", join(REPO_ROOT, "examples/hello.yaml"))).code).toBe(0);
    const thread = (
      await uwf("thread", "start", "hello", "-p", "Greet Ada", "--cwd", repo)
    ).stdout.trim();
    const exec = await uwf("thread", "exec", thread);
    // Besides uwf's progress, only the model line: the bundle finds what it loads at run time
    // (ajv, for validators). The agent's lines are shown as `<time>   <role> │ <line>`.
    const agentLines = exec.stderr
      .split("\n")
      .filter((line) => line.includes(" │ "))
      .map((line) => line.slice(line.indexOf(" │ ") + 3));
    expect(agentLines).toEqual([`uwf-builtin: model fake (fake-model at ${llm.baseUrl})`]);
    expect(
      exec.stderr.split("\n").filter((line) => line !== "" && !/^\d\d:\d\d:\d\d /.test(line)),
    ).toEqual([]);
    expect(exec.code).toBe(0);
    expect(await show(thread)).toMatchObject({ status: "completed", steps: 1 });
  });

  it("answers --version and is on PATH after install", async () => {
    const version = await runBin(BUILTIN_BIN, ["--version"], { env: { NODE_PATH: undefined } });
    const pkg = JSON.parse(
      readFileSync(join(REPO_ROOT, "packages/agent-builtin/package.json"), "utf8"),
    );
    expect(version).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
    expect(existsSync(join(REPO_ROOT, "node_modules/.bin/uwf-builtin"))).toBe(true);
  });
});
