import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { STEP_STORE_ENV, type StepPayload } from "@united-workforce/protocol";
import { serveStepStore } from "@united-workforce/store";
import {
  appendStep,
  type FakeLlm,
  openHomeStore,
  type SeededThread,
  seedThread,
  startFakeLlm,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify as stringifyYaml } from "yaml";
import { planDevReview } from "../__fixtures__/workflows.js";
import { SUSPEND_OUTPUT_SCHEMA } from "../extract/suspend.js";
import { createAgent } from "./agent-main.js";
import {
  type AgentContext,
  type AgentDefinition,
  AgentExit,
  type AgentRunResult,
} from "./types.js";

let temp: TempHome;
let seeded: SeededThread;

beforeEach(async () => {
  temp = tempHome();
  seeded = await seedThread(temp.home, {
    workflow: planDevReview,
    prompt: "Fix the login bug",
    cwd: temp.home,
  });
});
afterEach(() => temp.cleanup());

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** The parsed last stdout line. */
  json: Record<string, unknown> | null;
}

async function run(
  definition: Omit<AgentDefinition, "name">,
  args: { role?: string; prompt?: string; extra?: string[]; env?: Record<string, string> } = {},
): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const agent = createAgent({ name: "uwf-test", ...definition });
  const argv = [
    "--thread",
    seeded.thread,
    "--role",
    args.role ?? "planner",
    "--prompt",
    args.prompt ?? "Plan the task.",
  ];
  const code = await agent([...argv, ...(args.extra ?? [])], {
    env: { UWF_HOME: temp.home, ...args.env },
    cwd: temp.home,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  const last = stdout.trimEnd().split("\n").at(-1) ?? "";
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(last) as Record<string, unknown>;
  } catch {
    json = null;
  }
  return { code, stdout, stderr, json };
}

const answer =
  (text: string, usage?: AgentRunResult["usage"]) => async (): Promise<AgentRunResult> => ({
    text,
    ...(usage ? { usage } : {}),
  });

const READY =
  "---\n$status: ready\nplan: add a regression test\n---\n# Plan\n\nWrite the test first.\n";

/** Answers from a list: run gives the first, each continue the next; corrections are kept. */
function scripted(texts: string[], usage?: AgentRunResult["usage"]) {
  const corrections: string[] = [];
  let next = 0;
  const reply = async (): Promise<AgentRunResult> => ({
    text: texts[Math.min(next++, texts.length - 1)]!,
    session: { id: "s-1" },
    ...(usage ? { usage } : {}),
  });
  return {
    corrections,
    definition: {
      run: reply,
      continue: async (_ctx: AgentContext, session: unknown, correction: string) => {
        expect(session).toEqual({ id: "s-1" });
        corrections.push(correction);
        return reply();
      },
    },
  };
}

describe("createAgent", () => {
  it("reads and writes through the step's store uwf serves, and hides it from the agent", async () => {
    const store = await openHomeStore(temp.home);
    const pointer = await store.threads.get(seeded.thread);
    const served = await serveStepStore(store, pointer);
    let agentEnv: Record<string, string | undefined> = {};
    try {
      const result = await run(
        {
          run: async (ctx) => {
            agentEnv = ctx.env;
            return { text: READY };
          },
        },
        // A store the adapter cannot reach: only the served one works.
        { env: { [STEP_STORE_ENV]: served.path, UWF_STORE: "postgres://nobody@127.0.0.1:1/x" } },
      );
      expect(result.code, result.stderr).toBe(0);
      const step = await store.cas.getPayload<StepPayload>(String(result.json!.stepHash), "step");
      expect(step).toMatchObject({ start: pointer.start, prev: null, role: "planner" });
      expect(agentEnv[STEP_STORE_ENV]).toBeUndefined();
    } finally {
      served.close();
      await store.close();
    }
  });

  it("stores the step and prints one JSON line last on stdout", async () => {
    const result = await run({ run: answer(READY) });
    expect(result.code).toBe(0);
    expect(result.stdout.endsWith("\n")).toBe(true);
    expect(result.stdout.trimEnd().split("\n")).toHaveLength(1);
    expect(result.json).toEqual({
      stepHash: expect.any(String),
      role: "planner",
      status: "ready",
      attempts: 1,
    });
  });

  it("writes a StepNode with the chain links, the prompt, the body and unknown usage as null", async () => {
    let seen: AgentContext | undefined;
    const before = Date.now();
    const result = await run({
      run: async (ctx) => {
        seen = ctx;
        return { text: READY };
      },
    });
    const cas = (await openHomeStore(temp.home)).cas;
    const stepHash = String(result.json!.stepHash);
    const step = await cas.getPayload<StepPayload>(stepHash, "step");
    expect(step).toMatchObject({
      start: seeded.start,
      prev: null,
      role: "planner",
      agent: "uwf-test",
      edgePrompt: "Plan the task.",
      cwd: temp.home,
      attempts: 1,
    });
    expect(step.startedAtMs).toBeGreaterThanOrEqual(before);
    expect(step.completedAtMs).toBeGreaterThanOrEqual(step.startedAtMs);
    expect(step.usage).toEqual({
      inputTokens: null,
      outputTokens: null,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      costUsd: null,
      turns: null,
      durationMs: step.completedAtMs - step.startedAtMs,
    });
    expect(await cas.get(step.output)).toEqual({
      type: seeded.schemas.planner,
      payload: { $status: "ready", plan: "add a regression test" },
    });
    expect(await cas.getText(step.body)).toBe("# Plan\n\nWrite the test first.\n");
    expect(await cas.getText(step.assembledPrompt)).toBe(seen!.prompt);
    expect(await cas.getPayload(step.detail, "stepDetail")).toMatchObject({
      adapter: "uwf-test",
      model: null,
      sessionId: null,
      rawOutput: READY,
      attempts: [{ attempt: 1, kind: "run", valid: true, errors: [] }],
    });
  });

  it("links prev to the head and gives run the context since the role last ran", async () => {
    await appendStep(temp.home, seeded.thread, {
      role: "planner",
      output: { $status: "ready", plan: "p" },
    });
    const developer = await appendStep(temp.home, seeded.thread, {
      role: "developer",
      output: { $status: "done", branch: "b" },
    });
    const head = await appendStep(temp.home, seeded.thread, {
      role: "reviewer",
      output: { $status: "rejected", comments: "needs tests" },
    });
    let seen: AgentContext | undefined;
    const result = await run(
      {
        run: async (ctx) => {
          seen = ctx;
          return { text: "---\n$status: done\nbranch: b2\n---\n" };
        },
      },
      { role: "developer", prompt: "Fix: needs tests" },
    );
    expect(result.code).toBe(0);
    const step = await (await openHomeStore(temp.home)).cas.getPayload<StepPayload>(
      String(result.json!.stepHash),
      "step",
    );
    expect(step.prev).toBe(head);
    expect(seen!.stepIndex).toBe(3);
    expect(seen!.head).toBe(head);
    expect(seen!.history.map((e) => e.hash)).toEqual([developer, head]);
    expect(seen!.start.prompt).toBe("Fix the login bug");
    expect(seen!.workflow.name).toBe("plan-dev-review");
    expect(seen!.prompt).toContain("## Moderator Instruction\n\nFix: needs tests");
    expect(seen!.prompt).toContain("- comments: needs tests");
    expect(seen!.prompt.indexOf("## Output Format")).toBe(0);
  });

  it("repairs in the same session: the correction quotes the validator, usage adds up", async () => {
    const agent = scripted(["---\n$status: ready\n---\nforgot the plan\n", READY], {
      inputTokens: 100,
      outputTokens: 20,
      costUsd: 0.5,
    });
    const result = await run(agent.definition);
    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({ status: "ready", attempts: 2 });
    expect(agent.corrections).toHaveLength(1);
    expect(agent.corrections[0]).toContain("- /: must have required property 'plan'");
    expect(agent.corrections[0]).toContain(
      '- missing required field "plan" (required when $status is "ready")',
    );
    expect(agent.corrections[0]).toContain("### When `$status: ready`");
    expect(result.stderr).toContain("uwf-test: output invalid (attempt 1 of 3)");
    const cas = (await openHomeStore(temp.home)).cas;
    const step = await cas.getPayload<StepPayload>(String(result.json!.stepHash), "step");
    expect(step.attempts).toBe(2);
    expect(step.usage).toMatchObject({
      inputTokens: 200,
      outputTokens: 40,
      costUsd: 1,
      turns: null,
    });
    const detail = await cas.getPayload<{
      attempts: { kind: string; valid: boolean; correction?: string }[];
    }>(step.detail, "stepDetail");
    expect(detail.attempts.map((a) => [a.kind, a.valid])).toEqual([
      ["run", false],
      ["continue", true],
    ]);
    expect(detail.attempts[1]!.correction).toBe(agent.corrections[0]);
  });

  it("fails closed after three invalid answers, keeping every raw output in a detail node", async () => {
    const bad = [
      "no frontmatter at all",
      "---\n$status: ready\n---\n",
      "---\n$status: maybe\n---\n",
    ];
    const agent = scripted(bad);
    const result = await run(agent.definition);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe("");
    expect(agent.corrections).toHaveLength(2);
    expect(result.stderr).toContain('the output for role "planner" is invalid after 3 attempts');
    expect(result.stderr).toContain('  - "$status" is "maybe"');
    const detailHash = /detail node ([0-9A-HJKMNP-TV-Z]{13})/.exec(result.stderr)?.[1];
    expect(detailHash).toBeDefined();
    const detail = await (await openHomeStore(temp.home)).cas.getPayload<{
      attempts: { rawOutput: string }[];
      failure: string[];
    }>(detailHash!, "stepDetail");
    expect(detail.attempts.map((a) => a.rawOutput)).toEqual(bad);
    expect(detail.failure[0]).toContain('"$status" is "maybe"');
  });

  it("refuses a runaway answer over the size limit, and keeps only its start", async () => {
    const huge = `---\n$status: ready\nplan: ${"A".repeat(9 * 1024 * 1024)}\n---\n`;
    const result = await run({ run: answer(huge) });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("the answer is 9.0 MiB, over the 8 MiB an output may be");
    const detailHash = /detail node ([0-9A-HJKMNP-TV-Z]{13})/.exec(result.stderr)?.[1];
    const detail = await (await openHomeStore(temp.home)).cas.getPayload<{
      attempts: { rawOutput: string }[];
    }>(detailHash!, "stepDetail");
    const kept = detail.attempts[0]!.rawOutput;
    expect(kept.length).toBeLessThan(70 * 1024);
    expect(kept).toContain("more characters not kept: the answer was over the size limit");
  });

  it("does not repair when the adapter has no continue", async () => {
    const result = await run({ run: answer("---\n$status: ready\n---\n") });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("invalid after 1 attempt:");
  });

  it("stores $SUSPEND with a reason under the built-in suspend schema", async () => {
    const result = await run({
      run: answer("---\n$status: $SUSPEND\nreason: Which repository?\n---\n"),
    });
    expect(result.json).toMatchObject({ status: "$SUSPEND", attempts: 1 });
    const cas = (await openHomeStore(temp.home)).cas;
    const step = await cas.getPayload<StepPayload>(String(result.json!.stepHash), "step");
    expect(await cas.get(step.output)).toEqual({
      type: await cas.putSchema(SUSPEND_OUTPUT_SCHEMA),
      payload: { $status: "$SUSPEND", reason: "Which repository?" },
    });
  });

  describe("with an extract model", () => {
    let llm: FakeLlm;
    beforeEach(async () => {
      llm = await startFakeLlm({
        script: {
          steps: [{ text: '{"$status": "ready", "plan": "from the extract model", "noise": 1}' }],
        },
      });
      const config = {
        providers: { fake: { baseUrl: llm.baseUrl, apiKeyEnv: "FAKE_LLM_KEY" } },
        models: { cheap: { provider: "fake", name: "fake-extract" } },
        modelOverrides: { extract: "cheap" },
      };
      writeFileSync(join(temp.home, "config.yaml"), stringifyYaml(config));
      writeFileSync(join(temp.home, ".env"), "FAKE_LLM_KEY=sk-from-dotenv\n");
    });
    afterEach(() => llm.close());

    it("asks it for JSON after the agent's attempts fail, and validates its answer", async () => {
      const garbage = "I refactored the auth module. Plan: from the extract model.";
      const agent = scripted([garbage]);
      const result = await run(agent.definition);
      expect(result.code).toBe(0);
      expect(result.json).toMatchObject({ status: "ready", attempts: 4 });
      expect(result.stderr).toContain('asking extract model "cheap"');

      const [request] = llm.requests();
      expect(request!.url).toBe("/v1/chat/completions");
      expect(request!.headers.authorization).toBe("Bearer sk-from-dotenv");
      const body = request!.body as {
        model: string;
        response_format: unknown;
        messages: { role: string; content: string }[];
      };
      expect(body.model).toBe("fake-extract");
      expect(body.response_format).toEqual({ type: "json_object" });
      expect(body.messages[0]!.role).toBe("system");
      expect(body.messages[0]!.content).toContain('"insufficient_info"');
      expect(body.messages[1]).toEqual({ role: "user", content: garbage });

      const cas = (await openHomeStore(temp.home)).cas;
      const step = await cas.getPayload<StepPayload>(String(result.json!.stepHash), "step");
      expect((await cas.get(step.output)).payload).toEqual({
        $status: "ready",
        plan: "from the extract model",
      });
      expect(await cas.getText(step.body)).toBe(garbage);
      expect(step.usage).toMatchObject({ inputTokens: 10, outputTokens: 5 });
    });

    it("fails closed when the model's JSON is invalid too", async () => {
      llm.setScript({ steps: [{ text: '{"$status": "ready"}' }] });
      const result = await run({ run: answer("garbage") });
      expect(result.code).toBe(3);
      expect(result.stderr).toContain("invalid after 2 attempts");
      expect(result.stderr).toContain("extract model: /: must have required property 'plan'");
    });

    it("fails closed, naming the problem, when the model cannot be reached", async () => {
      llm.setScript({ steps: [{ error: { status: 500, message: "boom" } }] });
      const result = await run({ run: answer("garbage") });
      expect(result.code).toBe(3);
      expect(result.stderr).toContain(
        `extract model: model "fake-extract" at ${llm.baseUrl}/chat/completions answered HTTP 500: boom (after 2 tries)`,
      );
    });
  });

  it("loads <home>/.env without overriding the environment", async () => {
    writeFileSync(join(temp.home, ".env"), "FROM_FILE=file\nSHARED=file\n");
    let env: Record<string, string | undefined> = {};
    await run(
      {
        run: async (ctx) => {
          env = ctx.env;
          return { text: READY };
        },
      },
      { env: { SHARED: "process" } },
    );
    expect(env.FROM_FILE).toBe("file");
    expect(env.SHARED).toBe("process");
  });

  it.each([
    [["--thread", "T", "--prompt", "p"], 'missing required option "--role"'],
    [
      ["--thread", "T", "--role", "planner", "--prompt", "p", "--bogus", "1"],
      'unknown option "--bogus"',
    ],
    [["--thread", "T", "--role", "planner", "--prompt"], 'option "--prompt" needs a value'],
  ])("rejects bad arguments with exit 2: %j", async (argv, message) => {
    let stderr = "";
    const agent = createAgent({ name: "uwf-test", run: answer(READY) });
    const code = await agent(argv, {
      env: { UWF_HOME: temp.home },
      stdout: () => {},
      stderr: (text) => {
        stderr += text;
      },
    });
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });

  it("declares adapter options, with an environment fallback", async () => {
    let options: AgentContext["options"] = {};
    const definition = {
      options: {
        scenario: { description: "a file", required: true, env: "TEST_SCENARIO" },
        fast: { description: "x", type: "boolean" as const },
      },
      run: async (ctx: AgentContext) => {
        options = ctx.options;
        return { text: READY };
      },
    };
    const missing = await run(definition);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing required option "--scenario" (or set TEST_SCENARIO)');
    await run(definition, { extra: ["--fast"], env: { TEST_SCENARIO: "s.yaml" } });
    expect(options).toEqual({ scenario: "s.yaml", fast: true });
    await run(definition, { extra: ["--scenario=t.yaml"] });
    expect(options).toEqual({ scenario: "t.yaml", fast: undefined });
  });

  it("refuses a role that is not in the workflow", async () => {
    const result = await run({ run: answer(READY) }, { role: "tester" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('role "tester" is not in workflow "plan-dev-review"');
    expect(result.stderr).toContain("--role: developer, planner, reviewer.");
  });

  it("refuses, without running the agent, a role whose schema validation would refuse", async () => {
    const planner = planDevReview.roles.planner!;
    const anyOf = { anyOf: planner.frontmatter.oneOf } as typeof planner.frontmatter;
    seeded = await seedThread(temp.home, {
      workflow: {
        ...planDevReview,
        roles: { ...planDevReview.roles, planner: { ...planner, frontmatter: anyOf } },
      },
      prompt: "Fix the login bug",
      cwd: temp.home,
    });
    let ran = false;
    const result = await run({
      run: async () => {
        ran = true;
        return { text: READY };
      },
    });
    expect(result.code).toBe(3);
    expect(ran).toBe(false);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(
      '"$status" variants must be listed under "oneOf", not "anyOf" (exactly one exit applies to an output)',
    );
    expect(result.stderr).toContain("uwf workflow validate plan-dev-review");
  });

  it("reports a missing thread with its error code's exit status", async () => {
    seeded = { ...seeded, thread: "01ARZ3NDEKTSV4RRFFQ69G5FAV" };
    const result = await run({ run: answer(READY) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("uwf-test: error: no thread 01ARZ3NDEKTSV4RRFFQ69G5FAV");
  });

  it("lets an adapter end with its own code and raw stdout, writing no step", async () => {
    const result = await run({
      run: async () => {
        throw new AgentExit(7, "scripted failure", { stdout: "garbage\n" });
      },
    });
    expect(result).toMatchObject({
      code: 7,
      stdout: "garbage\n",
      stderr: "uwf-test: scripted failure\n",
    });
  });

  it("reports an adapter crash with exit 1", async () => {
    const result = await run({
      run: async () => {
        throw new Error("agent CLI crashed");
      },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("uwf-test: error: agent CLI crashed\n");
  });

  it("does nothing when the uwf that started it has already exited", async () => {
    const gone = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
    await once(gone, "exit");
    let ran = false;
    const result = await run(
      {
        run: async () => {
          ran = true;
          return { text: READY };
        },
      },
      { env: { UWF_ADAPTER_PARENT_PID: String(gone.pid) } },
    );
    expect(result).toMatchObject({ code: 130, stdout: "", stderr: "uwf-test: interrupted\n" });
    expect(ran).toBe(false);
  });

  describe("sessions and turns", () => {
    /** Run the planner once, then move the thread's head onto the step it stored. */
    async function plannerStep(
      detail: AgentRunResult["detail"],
      cwd = temp.home,
    ): Promise<{ step: string; seen: AgentContext }> {
      let seen: AgentContext | undefined;
      let stdout = "";
      const agent = createAgent({
        name: "uwf-test",
        run: async (ctx) => {
          seen = ctx;
          return { text: READY, ...(detail ? { detail } : {}) };
        },
      });
      const code = await agent(
        ["--thread", seeded.thread, "--role", "planner", "--prompt", "Plan."],
        {
          env: { UWF_HOME: temp.home },
          cwd,
          stdout: (text) => {
            stdout += text;
          },
          stderr: () => {},
        },
      );
      expect(code).toBe(0);
      const step = (JSON.parse(stdout) as { stepHash: string }).stepHash;
      const store = await openHomeStore(temp.home);
      const pointer = await store.threads.get(seeded.thread);
      await store.threads.swap(
        { ...pointer, head: step, steps: pointer.steps + 1, currentRole: "planner" },
        pointer.rev ?? 0,
      );
      await store.close();
      return { step, seen: seen! };
    }

    it("stores each turn as a turn node linked from the step's detail", async () => {
      const { step } = await plannerStep({
        sessionId: "sess-1",
        model: "m-1",
        turns: [
          {
            text: "Writing the plan.",
            toolCalls: [{ name: "Write", input: { file_path: "plan.md" }, output: "ok" }],
            usage: { inputTokens: 12, outputTokens: 3 },
          },
          { text: "Done.", toolCalls: [], usage: null },
        ],
      });
      const { cas } = await openHomeStore(temp.home);
      const stepPayload = await cas.getPayload<StepPayload>(step, "step");
      const detail = await cas.getPayload<{ turns: string[]; sessionId: string }>(
        stepPayload.detail,
        "stepDetail",
      );
      expect(detail.sessionId).toBe("sess-1");
      expect(await Promise.all(detail.turns.map((hash) => cas.getPayload(hash, "turn")))).toEqual([
        {
          text: "Writing the plan.",
          toolCalls: [{ name: "Write", input: { file_path: "plan.md" }, output: "ok" }],
          usage: { inputTokens: 12, outputTokens: 3 },
        },
        { text: "Done.", toolCalls: [], usage: null },
      ]);
      expect(await cas.refs(stepPayload.detail)).toEqual(expect.arrayContaining(detail.turns));
    });

    it("offers the role's session on its next visit by the same adapter in the same cwd", async () => {
      const first = await plannerStep({ sessionId: "sess-1", model: "m-1", state: "kept" });
      expect(first.seen.resumeSession).toBeNull();
      const second = await plannerStep({ sessionId: "sess-1", model: "m-1" });
      expect(second.seen.resumeSession).toEqual({
        adapter: "uwf-test",
        sessionId: "sess-1",
        cwd: temp.home,
        model: "m-1",
        // The step that last used the session, and its detail: where an adapter keeps state.
        step: first.step,
        detail: expect.objectContaining({ sessionId: "sess-1", state: "kept" }),
      });
      // A step without a session id keeps the sessions recorded before it.
      await plannerStep({});
      const fourth = await plannerStep({});
      expect(fourth.seen.resumeSession?.sessionId).toBe("sess-1");
      expect(fourth.seen.resumeSession?.step).toBe(second.step);
    });

    it("does not offer a session opened in another directory", async () => {
      await plannerStep({ sessionId: "sess-1" });
      const elsewhere = join(temp.home, "elsewhere");
      mkdirSync(elsewhere);
      const { seen } = await plannerStep({ sessionId: "sess-2" }, elsewhere);
      expect(seen.resumeSession).toBeNull();
    });
  });
});
