import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { stringify as stringifyYaml } from "yaml";
import { type AgentHome, agentHome } from "../agent-clis.js";
import type { FakeFailure, FakeStep } from "../fake-llm/script.js";
import { type FakeLlm, type FakeLlmRequest, startFakeLlm } from "../fake-llm/server.js";
import { tempHome } from "../home.js";
import { sleep } from "../processes.js";
import { type RunResult, runUwf } from "../run.js";
import { answer, CONFORMANCE_WORKFLOW } from "./workflow.js";

export const CONFORMANCE_CASES = [
  "full-workflow",
  "resume-session",
  "tool-writes-file",
  "repair-in-session",
  "http-400",
  "http-500",
  "transient-retry",
  "transient-suspend",
  "hung-model",
  "usage",
] as const;
export type ConformanceCaseName = (typeof CONFORMANCE_CASES)[number];

/** What the cases need to know about one adapter and the CLI it drives. */
export interface AdapterConformanceOptions {
  /** The adapter's command (a path, or a name on the test's PATH) and its own arguments. */
  command: string;
  args?: string[];
  /**
   * Arguments that turn the CLI's own API retries off (e.g. `--max-retries 0`): every case
   * runs with them, so a failing model fails at once.
   */
  noRetryArgs?: string[];
  /** The provider entry for the fake: its `api`, and the model name the CLI is given. */
  provider: { api: "anthropic" | "openai-chat" | "openai-responses" | "gemini"; model: string };
  /** The provider's base URL for the fake (default `<fake>/v1`). */
  baseUrl?: (fake: FakeLlm) => string;
  /** The fake's tool call that makes this CLI write `content` into `path` (relative to cwd). */
  writeFileTool: (file: { path: string; content: string }) => FakeStep["tool"];
  /** Extra environment for uwf (and so the adapter): a binary override, the CLI's settings. */
  env?: (sandbox: ConformanceSandbox) => Record<string, string>;
  /** Prepare the agent's HOME before uwf runs (a CLI config file). */
  prepare?: (sandbox: ConformanceSandbox) => void;
  /** Cases to leave out, each with the reason (shown in the case name). */
  skip?: Partial<Record<ConformanceCaseName, string>>;
  /** Per-case test timeout in ms (default 30 s; the full workflow gets twice this). */
  timeoutMs?: number;
  /** The agent's `timeoutSeconds` in the hung-model case (default 8). */
  hungTimeoutSeconds?: number;
  /**
   * The transient-suspend case: the fake's endless failure (default: HTTP 429 with
   * `retry-after: 90` and a message saying "try again in 90 seconds"), and the wait the
   * adapter is expected to pass on to uwf (default 90 s, give or take `toleranceSeconds`);
   * `waitSeconds: null` when the CLI hides every wait, so uwf's own backoff sets the time.
   */
  transient?: {
    /** Made when the case starts, so that a reset time in it is counted from then. */
    failure?: () => FakeFailure;
    waitSeconds: number | null;
    toleranceSeconds?: number;
  };
}

/** One case, for `it(case.name, case.run, case.timeoutMs)`. */
export interface ConformanceCase {
  name: ConformanceCaseName;
  title: string;
  skipped: string | null;
  timeoutMs: number;
  run: () => Promise<void>;
}

/** The folders and the fake of one case. */
export interface ConformanceSandbox {
  root: string;
  uwfHome: string;
  /** The temp git repository: the thread's and so the agent's cwd. */
  repo: string;
  agent: AgentHome;
  fake: FakeLlm;
}

const TASK = "Conformance task: plan the work, then carry it out.";

/**
 * The adapter conformance cases (issue 7): any adapter runs the same cases through the built
 * `uwf` in a temp UWF_HOME, with a private fake model and a temp git repository as cwd.
 *
 * ```ts
 * describe("uwf-x conformance", () => {
 *   for (const c of adapterConformance({ … })) it.skipIf(c.skipped)(c.title, c.run, c.timeoutMs);
 * });
 * ```
 */
export function adapterConformance(options: AdapterConformanceOptions): ConformanceCase[] {
  const timeoutMs = options.timeoutMs ?? 30_000;
  // One run serves the full-workflow, resume and usage cases, which all look at it.
  let fullRun: Promise<FullRun> | null = null;
  const full = (): Promise<FullRun> => {
    fullRun ??= runFullWorkflow(options);
    return fullRun;
  };
  const bodies: Record<ConformanceCaseName, [string, () => Promise<void>]> = {
    "full-workflow": [
      "a full workflow with two roles completes, every step listed with usage",
      async () => checkFullWorkflow(await full()),
    ],
    "resume-session": [
      "a role revisited resumes its session: its next request carries its first exchange",
      async () => checkResume(await full()),
    ],
    "tool-writes-file": [
      "a tool call of the agent writes a file in the step's cwd",
      () => toolWritesFile(options),
    ],
    "repair-in-session": [
      "a reply without frontmatter is repaired in the same session",
      () => repairInSession(options),
    ],
    "http-400": [
      "HTTP 400 from the model suspends the thread with a clear reason (exit 4)",
      () => httpError(options, 400),
    ],
    "http-500": [
      "HTTP 500 with retries off suspends the thread (exit 4) after few requests",
      () => httpError(options, 500),
    ],
    "transient-retry": [
      "a rate-limited request (HTTP 429) is a transient failure: uwf runs the step again and it succeeds",
      () => transientRetry(options),
    ],
    "transient-suspend": [
      "a model that stays rate limited suspends the thread with kind retry and the API's wait",
      () => transientSuspend(options),
    ],
    "hung-model": [
      "a hung model times out: thread suspended, the adapter's processes gone",
      () => hungModel(options),
    ],
    usage: ["the usage the API reports is recorded", async () => checkUsage(await full())],
  };
  return CONFORMANCE_CASES.map((name) => {
    const [title, body] = bodies[name];
    const skipped = options.skip?.[name] ?? null;
    const caseTimeout =
      name === "full-workflow" || name === "resume-session" || name === "usage"
        ? timeoutMs * 2
        : name === "hung-model"
          ? timeoutMs + (options.hungTimeoutSeconds ?? 8) * 1000
          : timeoutMs;
    return {
      name,
      title: `${name}: ${title}${skipped ? ` (skipped: ${skipped})` : ""}`,
      skipped,
      timeoutMs: caseTimeout,
      run: body,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// The cases

interface FullRun {
  exec: RunResult;
  steps: StepListDoc["steps"];
  threadStatus: string;
  transcript: RunResult;
  modelRequests: FakeLlmRequest[];
}

const FIRST_ANSWER_MARKER = "conformance-first-answer-K7Q";

async function runFullWorkflow(options: AdapterConformanceOptions): Promise<FullRun> {
  // Turn 0 of any session answers `next` (the marker is not a schema field: uwf drops it from
  // the output, so only a resumed session can carry it); turn 1, the planner's revisit, ends.
  const script = {
    steps: [
      { text: answer("next", "step one done", { marker: FIRST_ANSWER_MARKER }) },
      { text: answer("finish", "all checked") },
    ],
  };
  return withSandbox(options, script, async (sb) => {
    const thread = await startThread(sb, options);
    const exec = await uwf(sb, options, ["thread", "exec", thread, "-c", "10", "--format", "json"]);
    const list = await uwfJson<StepListDoc>(sb, options, ["step", "list", thread]);
    const shown = await uwfJson<{ status: string }>(sb, options, ["thread", "show", thread]);
    const transcript = await uwf(sb, options, ["thread", "read", thread]);
    return {
      exec,
      steps: list.steps,
      threadStatus: shown.status,
      transcript,
      modelRequests: modelRequests(sb.fake),
    };
  });
}

function checkFullWorkflow(run: FullRun): void {
  expectExit(run.exec, 0, "uwf thread exec of the full workflow");
  assert.equal(run.threadStatus, "completed", `the thread ended ${run.threadStatus}`);
  assert.deepEqual(
    run.steps.map((s) => `${s.role}:${s.status}`),
    ["planner:next", "developer:next", "planner:finish"],
  );
  for (const step of run.steps) {
    assert.ok(step.usage, `step ${step.hash} (${step.role}) has no usage`);
    assert.equal(typeof step.usage.durationMs, "number", `step ${step.role} has no duration`);
  }
  expectExit(run.transcript, 0, "uwf thread read");
  for (const role of ["planner", "developer"]) {
    assert.ok(run.transcript.stdout.includes(role), `thread read does not show ${role}`);
  }
  assert.ok(run.transcript.stdout.includes("all checked"), "thread read lacks the last answer");
}

function checkResume(run: FullRun): void {
  expectExit(run.exec, 0, "uwf thread exec of the full workflow");
  // Fresh sessions start at turn 0; only a resumed one has earlier assistant turns.
  const resumed = run.modelRequests.filter((r) => r.served.turn === 1);
  assert.ok(
    resumed.length > 0,
    `no request carried an earlier exchange: the planner's revisit started a new session (turns seen: ${run.modelRequests.map((r) => r.served.turn).join(", ")})`,
  );
  const carried = resumed.some((r) => JSON.stringify(r.body).includes(FIRST_ANSWER_MARKER));
  assert.ok(carried, "the revisit's request does not carry the planner's first answer");
  // The control: the marker is not in uwf's prompts (the developer's history shows the
  // planner's step without it), so only the resumed session can have carried it.
  const fresh = run.modelRequests.filter((r) => r.served.turn === 0);
  assert.ok(
    fresh.every((r) => !JSON.stringify(r.body).includes(FIRST_ANSWER_MARKER)),
    "a fresh session's request carries the first answer's marker: the case proves nothing",
  );
}

function checkUsage(run: FullRun): void {
  expectExit(run.exec, 0, "uwf thread exec of the full workflow");
  for (const step of run.steps) {
    // The fake reports input and output tokens in every answer.
    assert.equal(typeof step.usage.inputTokens, "number", `${step.role}: inputTokens is null`);
    assert.equal(typeof step.usage.outputTokens, "number", `${step.role}: outputTokens is null`);
    assert.ok((step.usage.outputTokens ?? 0) > 0, `${step.role}: outputTokens is 0`);
  }
}

async function toolWritesFile(options: AdapterConformanceOptions): Promise<void> {
  const file = { path: "notes/conformance.txt", content: "written by the agent's own tool\n" };
  const script = {
    steps: [
      { text: "Writing the notes file.", tool: options.writeFileTool(file) },
      { text: answer("next", "notes written") },
    ],
  };
  await withSandbox(options, script, async (sb) => {
    mkdirSync(join(sb.repo, "notes"));
    const thread = await startThread(sb, options);
    const exec = await uwf(sb, options, ["thread", "exec", thread, "-c", "1"]);
    expectExit(exec, 0, "uwf thread exec");
    const path = join(sb.repo, file.path);
    assert.ok(
      existsSync(path),
      `the agent did not write ${file.path} in the step's cwd (requests: ${describeRequests(sb.fake)})`,
    );
    assert.equal(readFileSync(path, "utf8"), file.content);
    const tools = modelRequests(sb.fake).filter((r) => r.served.reply === "tool");
    assert.equal(tools.length, 1, "the fake was not asked once for the tool call");
  });
}

async function repairInSession(options: AdapterConformanceOptions): Promise<void> {
  const plain = "conformance-plain-answer-W3: the plan is to write the notes.";
  const script = { steps: [{ text: plain }, { text: answer("next", "repaired") }] };
  await withSandbox(options, script, async (sb) => {
    const thread = await startThread(sb, options);
    const exec = await uwf(sb, options, ["thread", "exec", thread, "-c", "1", "--format", "json"]);
    expectExit(exec, 0, "uwf thread exec");
    const list = await uwfJson<StepListDoc>(sb, options, ["step", "list", thread]);
    assert.deepEqual(
      list.steps.map((s) => `${s.role}:${s.status}`),
      ["planner:next"],
    );
    const correction = modelRequests(sb.fake).find((r) => r.served.turn === 1);
    assert.ok(
      correction,
      `no correction request in the same session (${describeRequests(sb.fake)})`,
    );
    assert.ok(
      JSON.stringify(correction.body).includes("conformance-plain-answer-W3"),
      "the correction request does not carry the earlier answer",
    );
  });
}

async function httpError(options: AdapterConformanceOptions, status: 400 | 500): Promise<void> {
  const message = `conformance scripted ${status}`;
  const script = { steps: [{ error: { status, message } }] };
  await withSandbox(options, script, async (sb) => {
    const thread = await startThread(sb, options);
    const exec = await uwf(sb, options, ["thread", "exec", thread, "-c", "1"]);
    expectExit(exec, 4, `uwf thread exec against a model answering ${status}`);
    const shown = await uwfJson<ShowDoc>(sb, options, ["thread", "show", thread]);
    assert.equal(shown.status, "suspended");
    const reason = shown.suspended?.reason ?? "";
    assert.ok(
      reason.includes(String(status)) || reason.includes(message),
      `the suspend reason does not say what failed: ${JSON.stringify(reason)}`,
    );
    const requests = modelRequests(sb.fake).length;
    assert.ok(requests >= 1, "the model was never asked");
    // Retries off: one request, give or take a CLI's own side request; never a retry loop.
    assert.ok(requests <= 3, `${requests} model requests: retries are not off`);
  });
}

/** uwf's retries of transient failures in the two transient cases: quick, and few. */
const QUICK_RETRY = { maxRetries: 2, delaySeconds: 0.05, maxDelaySeconds: 600 };

async function transientRetry(options: AdapterConformanceOptions): Promise<void> {
  // One 429 without a wait, then the script: the adapter's first run fails, its second answers.
  const script = {
    steps: [{ text: answer("next", "done after the rate limit") }],
    // Only the agent's own turn: a side request's failure (claude's title) would be ignored.
    fail_first: { count: 1, status: 429, message: "conformance rate limit", with_tools: true },
  };
  await withSandbox(
    options,
    script,
    async (sb) => {
      const thread = await startThread(sb, options);
      const exec = await uwf(sb, options, ["thread", "exec", thread, "-c", "1"]);
      expectExit(exec, 0, "uwf thread exec after one HTTP 429");
      assert.match(exec.stderr, /retry 1 of 2/, "uwf did not report a retry of the step");
      const list = await uwfJson<StepListDoc>(sb, options, ["step", "list", thread]);
      assert.deepEqual(
        list.steps.map((s) => `${s.role}:${s.status}`),
        ["planner:next"],
      );
      const failed = sb.fake.requests().filter((r) => r.served.reply === "error");
      assert.equal(failed.length, 1, `not one failed request (${describeRequests(sb.fake)})`);
    },
    { retry: QUICK_RETRY },
  );
}

async function transientSuspend(options: AdapterConformanceOptions): Promise<void> {
  const waitSeconds = options.transient ? options.transient.waitSeconds : 90;
  const tolerance = options.transient?.toleranceSeconds ?? 5;
  const failure: FakeFailure = options.transient?.failure?.() ?? {
    status: 429,
    message: "conformance rate limit: try again in 90 seconds",
    headers: { "retry-after": "90" },
  };
  const script = { steps: [{ text: answer("next", "never reached") }], fail_first: failure };
  await withSandbox(
    options,
    script,
    async (sb) => {
      const thread = await startThread(sb, options);
      const before = Date.now();
      const exec = await uwf(sb, options, ["thread", "exec", thread, "-c", "1"]);
      expectExit(exec, 4, "uwf thread exec against a model that stays rate limited");
      const shown = await uwfJson<ShowDoc>(sb, options, ["thread", "show", thread]);
      assert.equal(shown.status, "suspended");
      assert.equal(shown.suspended?.kind, "retry", `suspended as ${shown.suspended?.kind}`);
      const at = Date.parse(shown.suspended?.retryAfter ?? "");
      assert.ok(Number.isFinite(at), `no retryAfter: ${JSON.stringify(shown.suspended)}`);
      // Two retries (0.05 s, 0.1 s), then the next backoff; a wait the API asked for that is
      // longer than maxDelaySeconds suspends at once, with that wait.
      const expected = waitSeconds === null ? 0.2 : waitSeconds;
      const slack = waitSeconds === null ? 1 : tolerance;
      const low = before + (expected - slack) * 1000;
      const high = Date.now() + (expected + slack) * 1000;
      assert.ok(
        at >= low && at <= high,
        `retryAfter ${shown.suspended?.retryAfter} is not about ${expected} s after the exec; reason: ${shown.suspended?.reason}`,
      );
      const failed = sb.fake.requests().filter((r) => r.served.reply === "error").length;
      assert.ok(failed >= 1, "the model was never asked");
    },
    { retry: { ...QUICK_RETRY, maxDelaySeconds: 30 } },
  );
}

async function hungModel(options: AdapterConformanceOptions): Promise<void> {
  const timeoutSeconds = options.hungTimeoutSeconds ?? 8;
  const script = { steps: [{ text: answer("next", "too late"), delay_ms: 60_000 }] };
  await withSandbox(
    options,
    script,
    async (sb) => {
      const thread = await startThread(sb, options);
      const exec = await uwf(sb, options, ["thread", "exec", thread, "-c", "1"]);
      expectExit(exec, 4, "uwf thread exec against a hung model");
      const shown = await uwfJson<ShowDoc>(sb, options, ["thread", "show", thread]);
      assert.equal(shown.status, "suspended");
      assert.match(shown.suspended?.reason ?? "", /time|timed out/i);
      // The delayed request has no reply logged yet: any POST is the CLI asking the model.
      assert.ok(
        sb.fake.requests().some((r) => r.method === "POST"),
        `the CLI never reached the model (${describeRequests(sb.fake)})`,
      );
      const left = await waitForNoProcessIn(sb.repo, 15_000);
      assert.deepEqual(left, [], `processes still running in the step's cwd: ${left.join("; ")}`);
    },
    { timeoutSeconds },
  );
}

// ---------------------------------------------------------------------------------------------
// The sandbox

async function withSandbox<T>(
  options: AdapterConformanceOptions,
  script: { steps: FakeStep[] },
  body: (sb: ConformanceSandbox) => Promise<T>,
  agentSettings: { timeoutSeconds?: number; retry?: Record<string, number> } = {},
): Promise<T> {
  const temp = tempHome();
  const agent = agentHome();
  const fake = await startFakeLlm({ script });
  try {
    const sb: ConformanceSandbox = {
      root: temp.home,
      uwfHome: join(temp.home, "uwf-home"),
      repo: join(temp.home, "repo"),
      agent,
      fake,
    };
    mkdirSync(sb.uwfHome);
    mkdirSync(sb.repo);
    const git = spawnSync("git", ["init", "-q", sb.repo], { encoding: "utf8" });
    if (git.status !== 0) throw new Error(`git init failed: ${git.stderr || git.error?.message}`);
    writeFileSync(join(temp.home, "conformance.yaml"), CONFORMANCE_WORKFLOW);
    // uwf's retries of transient failures are off unless a case turns them on: an HTTP 500
    // suspends at once (kind retry) instead of waiting out the default backoff.
    writeConfig(sb, options, agentSettings.timeoutSeconds ?? 120, agentSettings.retry);
    options.prepare?.(sb);
    const result = await body(sb);
    checkKeyReachedModel(fake);
    return result;
  } finally {
    await fake.close();
    agent.cleanup();
    temp.cleanup();
  }
}

/** The provider's key in config.yaml: the one every request to the model must carry. */
const CONFORMANCE_KEY = "fake-conformance-key-R8V";

/**
 * Every request that reached the model carried the key config.yaml gives the provider, where
 * its API puts it (`Authorization`, `x-api-key`, `x-goog-api-key`, or the URL): the adapter
 * handed uwf's key to its agent, and no key of its own or of the environment stood in for it.
 */
function checkKeyReachedModel(fake: FakeLlm): void {
  const keyless = modelRequests(fake).filter(
    (r) => !r.url.includes(CONFORMANCE_KEY) && !JSON.stringify(r.headers).includes(CONFORMANCE_KEY),
  );
  assert.deepEqual(
    keyless.map((r) => `${r.method} ${r.url}`),
    [],
    "requests to the model without the provider's key from config.yaml",
  );
}

function writeConfig(
  sb: ConformanceSandbox,
  options: AdapterConformanceOptions,
  timeoutSeconds: number,
  retry: Record<string, number> = { maxRetries: 0 },
): void {
  const config = {
    providers: {
      fake: {
        api: options.provider.api,
        baseUrl: options.baseUrl?.(sb.fake) ?? sb.fake.baseUrl,
        apiKey: CONFORMANCE_KEY,
      },
    },
    models: { fake: { provider: "fake", name: options.provider.model } },
    agents: {
      conformance: {
        command: options.command,
        args: [...(options.args ?? []), ...(options.noRetryArgs ?? [])],
        // uwf passes it to the adapter as `--model fake`.
        model: "fake",
        timeoutSeconds,
      },
    },
    defaultAgent: "conformance",
    retry,
  };
  writeFileSync(join(sb.uwfHome, "config.yaml"), stringifyYaml(config), { mode: 0o600 });
}

function uwfEnv(
  sb: ConformanceSandbox,
  options: AdapterConformanceOptions,
): Record<string, string> {
  return { ...sb.agent.env, ...(options.env?.(sb) ?? {}) };
}

function uwf(
  sb: ConformanceSandbox,
  options: AdapterConformanceOptions,
  args: string[],
): Promise<RunResult> {
  return runUwf(args, {
    home: sb.uwfHome,
    cwd: sb.repo,
    env: uwfEnv(sb, options),
    timeoutMs: 120_000,
  });
}

async function uwfJson<T>(
  sb: ConformanceSandbox,
  options: AdapterConformanceOptions,
  args: string[],
): Promise<T> {
  const result = await uwf(sb, options, [...args, "--format", "json"]);
  expectExit(result, 0, `uwf ${args.join(" ")}`);
  return JSON.parse(result.stdout) as T;
}

async function startThread(
  sb: ConformanceSandbox,
  options: AdapterConformanceOptions,
): Promise<string> {
  const workflow = join(sb.root, "conformance.yaml");
  const doc = await uwfJson<{ thread: string }>(sb, options, [
    "thread",
    "start",
    workflow,
    "-p",
    TASK,
    "--cwd",
    sb.repo,
  ]);
  return doc.thread;
}

function expectExit(result: RunResult, code: number, what: string): void {
  if (result.code === code) return;
  throw new assert.AssertionError({
    message: `${what} exited ${result.code ?? result.signal}${result.timedOut ? " (timed out)" : ""}, expected ${code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`,
    actual: result.code,
    expected: code,
  });
}

/** The requests that asked the model for a reply (the fake numbers their turn). */
function modelRequests(fake: FakeLlm): FakeLlmRequest[] {
  return fake.requests().filter((r) => typeof r.served.turn === "number");
}

function describeRequests(fake: FakeLlm): string {
  return fake
    .requests()
    .map((r) => `${r.method} ${r.url} → ${JSON.stringify(r.served)}`)
    .join("; ");
}

/** Poll until no process has its cwd inside `dir`; returns those still there at the deadline. */
async function waitForNoProcessIn(dir: string, timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = processesIn(dir);
    if (left.length === 0 || Date.now() >= deadline) return left;
    await sleep(100);
  }
}

/** Live processes whose working directory is `dir` or inside it, as "pid command". */
export function processesIn(dir: string): string[] {
  // Without /proc nothing could be found, and the hung-model case would pass for nothing.
  if (!existsSync("/proc/self/cwd")) throw new Error("processesIn needs Linux's /proc");
  const found: string[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cwd = readlinkSync(`/proc/${name}/cwd`);
      const rel = relative(dir, cwd);
      if (rel.startsWith("..") || rel.startsWith("/")) continue;
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      found.push(`${name} ${cmd.slice(0, 200)}`);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

interface StepListDoc {
  steps: {
    hash: string;
    role: string;
    status: string;
    usage: Record<string, number | null>;
  }[];
}

interface ShowDoc {
  status: string;
  suspended: { role: string; reason: string; kind: string; retryAfter?: string } | null;
}
