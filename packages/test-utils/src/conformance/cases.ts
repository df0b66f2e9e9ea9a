import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeFailure } from "../fake-llm/script.js";
import type { FakeLlmRequest } from "../fake-llm/server.js";
import { waitForNoProcessIn } from "../processes.js";
import type { RunResult } from "../run.js";
import type { AdapterConformanceOptions } from "./options.js";
import {
  describeRequests,
  expectExit,
  modelRequests,
  startThread,
  uwf,
  uwfJson,
  withSandbox,
} from "./sandbox.js";
import { answer } from "./workflow.js";

// The cases themselves: each runs the built uwf against the adapter in a sandbox of its own
// and asserts what a user would see.

/** The one full-workflow run the full-workflow, resume and usage cases all look at. */
export interface FullRun {
  exec: RunResult;
  steps: StepListDoc["steps"];
  threadStatus: string;
  transcript: RunResult;
  modelRequests: FakeLlmRequest[];
}

const FIRST_ANSWER_MARKER = "conformance-first-answer-K7Q";

export async function runFullWorkflow(options: AdapterConformanceOptions): Promise<FullRun> {
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

export function checkFullWorkflow(run: FullRun): void {
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

export function checkResume(run: FullRun): void {
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

export function checkUsage(run: FullRun): void {
  expectExit(run.exec, 0, "uwf thread exec of the full workflow");
  for (const step of run.steps) {
    // The fake reports input and output tokens in every answer.
    assert.equal(typeof step.usage.inputTokens, "number", `${step.role}: inputTokens is null`);
    assert.equal(typeof step.usage.outputTokens, "number", `${step.role}: outputTokens is null`);
    assert.ok((step.usage.outputTokens ?? 0) > 0, `${step.role}: outputTokens is 0`);
  }
}

export async function toolWritesFile(options: AdapterConformanceOptions): Promise<void> {
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

export async function repairInSession(options: AdapterConformanceOptions): Promise<void> {
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

export async function httpError(
  options: AdapterConformanceOptions,
  status: 400 | 500,
): Promise<void> {
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

export async function transientRetry(options: AdapterConformanceOptions): Promise<void> {
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

export async function transientSuspend(options: AdapterConformanceOptions): Promise<void> {
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

export async function hungModel(options: AdapterConformanceOptions): Promise<void> {
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
