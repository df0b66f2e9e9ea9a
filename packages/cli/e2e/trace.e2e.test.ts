import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import {
  type FakeLlm,
  type OtlpReceiver,
  REPO_ROOT,
  type ReceivedSpan,
  startFakeLlm,
  startOtlpReceiver,
  startUwf,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  DRAFT_REVIEW,
  mockAgent,
  type Sandbox,
  sandbox,
  scenario,
  startThread,
  uwf,
  uwfJson,
} from "./fixtures/lifecycle/harness.js";

/**
 * `uwf thread trace`: a thread's OpenTelemetry trace rebuilt from history, written as OTLP JSON
 * or sent to a collector (a local receiver that decodes protobuf with the official protocol
 * definitions), with ids derived from hashes so that every export names the same spans.
 */

interface OtlpJson {
  resourceSpans: {
    resource: { attributes: { key: string; value: Record<string, unknown> }[] };
    scopeSpans: {
      scope: { name: string };
      spans: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        startTimeUnixNano: string;
        attributes: { key: string; value: Record<string, unknown> }[];
      }[];
    }[];
  }[];
}

const spansOfJson = (doc: OtlpJson) =>
  doc.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));

let sb: Sandbox;
let receiver: OtlpReceiver;
beforeEach(async () => {
  sb = sandbox();
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
  sb.cleanup();
});

/** The uwf-mock scenario of a draft-review thread: writer, reviewer (changes), writer, reviewer. */
function reviewScenario(): string {
  return scenario(sb, "review", [
    {
      role: "writer",
      output: { $status: "drafted", title: "One" },
      usage: { inputTokens: 120, outputTokens: 30, costUsd: 0.002 },
    },
    { role: "reviewer", output: { $status: "changes", notes: "shorter" } },
    { role: "writer", output: { $status: "drafted", title: "Two" } },
    { role: "reviewer", output: { $status: "approved" } },
  ]);
}

/** A draft-review thread run to completion by uwf-mock. */
async function completedThread(): Promise<string> {
  const file = reviewScenario();
  const { thread } = await startThread(sb, DRAFT_REVIEW, "Write a note.");
  const exec = await uwf(sb, ["thread", "exec", thread, "-c", "4", "--agent", mockAgent(file)]);
  expect(exec.code, exec.stderr).toBe(0);
  return thread;
}

/** The parent of every span is in the trace, and the run is its one root. */
function expectOneTree(spans: ReceivedSpan[]): ReceivedSpan {
  const ids = new Set(spans.map((s) => s.spanId));
  const roots = spans.filter((s) => s.parentSpanId === null);
  expect(roots).toHaveLength(1);
  for (const span of spans) {
    if (span.parentSpanId !== null) expect(ids.has(span.parentSpanId), span.name).toBe(true);
  }
  expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
  return roots[0]!;
}

describe("uwf thread trace", () => {
  it("writes the same OTLP JSON every time, and sends the same spans to a collector", async () => {
    const thread = await completedThread();
    const first = await uwfJson<{ traceId: string; spans: number; file: string }>(sb, [
      "thread",
      "trace",
      thread,
      "-o",
      "a.json",
    ]);
    expect(first).toMatchObject({ spans: 5, protocol: "http/json", endpoint: null });
    await uwfJson(sb, ["thread", "trace", thread, "-o", "b.json"]);
    const a = readFileSync(join(sb.work, "a.json"), "utf8");
    expect(readFileSync(join(sb.work, "b.json"), "utf8")).toBe(a);
    const written = spansOfJson(JSON.parse(a) as OtlpJson);
    expect(written.map((s) => s.name)).toEqual([
      "invoke_workflow draft-review",
      "invoke_agent writer",
      "invoke_agent reviewer",
      "invoke_agent writer",
      "invoke_agent reviewer",
    ]);
    expect(written.every((s) => s.traceId === first.traceId)).toBe(true);
    // The official JSON encoding: hex ids, camelCase, int64 as strings.
    expect(first.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(written[1]!.startTimeUnixNano).toMatch(/^\d+$/);
    expect(written[1]!.attributes).toContainEqual({
      key: "gen_ai.usage.input_tokens",
      value: { intValue: "120" },
    });

    // Printed without -o or --otlp: the same request.
    const printed = await uwf(sb, ["thread", "trace", thread]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe(`${a}\n`);

    // Sent (protobuf by default) twice: decoded by the official definitions, the same spans.
    for (let i = 0; i < 2; i++) {
      const sent = await uwf(sb, ["thread", "trace", thread, "--otlp", receiver.url]);
      expect(sent.code, sent.stderr).toBe(0);
      expect(sent.stdout).toBe(
        `sent 5 spans of trace ${first.traceId} to ${receiver.url}/v1/traces\n`,
      );
    }
    expect(receiver.requests.map((r) => [r.path, r.protocol])).toEqual([
      ["/v1/traces", "http/protobuf"],
      ["/v1/traces", "http/protobuf"],
    ]);
    const [once, twice] = receiver.requests.map((r) => r.spans);
    expect(twice).toEqual(once);
    const spans = once!;
    expect(spans.map((s) => s.spanId)).toEqual(written.map((s) => s.spanId));
    const run = expectOneTree(spans);
    expect(run).toMatchObject({ name: "invoke_workflow draft-review", kind: 1, scope: "uwf" });
    expect(run.resource["service.name"]).toBe("uwf");
    expect(run.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_workflow",
      "gen_ai.workflow.name": "draft-review",
      "uwf.thread.id": thread,
      "uwf.thread.status": "completed",
    });
    const steps = spans.filter((s) => s !== run);
    for (const step of steps) expect(step.parentSpanId).toBe(run.spanId);
    const hashes = (
      await uwfJson<{ steps: { hash: string }[] }>(sb, ["step", "list", thread])
    ).steps.map((s) => s.hash);
    expect(steps.map((s) => s.attributes["uwf.step.hash"])).toEqual(hashes);
    expect(steps[0]!.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "writer",
      "gen_ai.request.model": "mock",
      "gen_ai.usage.input_tokens": 120,
      "gen_ai.usage.output_tokens": 30,
      "uwf.usage.cost_usd": 0.002,
      "uwf.step.status": "drafted",
      "uwf.step.number": 1,
    });
    expect(steps[1]!.attributes["uwf.step.status"]).toBe("changes");

    // http/json to a URL that names the traces path already, with the service named by env.
    const json = await uwf(
      sb,
      ["thread", "trace", thread, "--otlp", `${receiver.url}/v1/traces`, "--protocol", "http/json"],
      { env: { OTEL_SERVICE_NAME: "release-bot", OTEL_EXPORTER_OTLP_HEADERS: "x-team=a%20b" } },
    );
    expect(json.code, json.stderr).toBe(0);
    const last = receiver.requests.at(-1)!;
    expect([last.path, last.protocol, last.headers["x-team"]]).toEqual([
      "/v1/traces",
      "http/json",
      "a b",
    ]);
    expect(last.spans.map((s) => s.spanId)).toEqual(written.map((s) => s.spanId));
    expect(last.spans[0]!.resource["service.name"]).toBe("release-bot");
  });

  it("records the built-in agent's model, turns and tool calls against the fake model", async () => {
    const llm: FakeLlm = await startFakeLlm();
    try {
      const repo = join(sb.home, "repo");
      mkdirSync(repo);
      execFileSync("git", ["init", "-q"], { cwd: repo });
      writeFileSync(
        join(sb.home, "config.yaml"),
        JSON.stringify({
          providers: { fake: { baseUrl: llm.baseUrl, apiKey: "sk-fake-key" } },
          models: { fake: { provider: "fake", name: "fake-model" } },
          agents: {
            builtin: {
              command: join(REPO_ROOT, "packages/agent-builtin/bin/uwf-builtin.cjs"),
              args: ["--model", "fake"],
            },
          },
          defaultAgent: "builtin",
        }),
        { mode: 0o600 },
      );
      llm.setScript({
        steps: [
          { tool: { write_file: { path: "NOTE.md", content: "A note.\n" } } },
          { text: "---\n$status: drafted\ntitle: Note\n---\nWritten to NOTE.md.\n" },
        ],
      });
      const { thread } = await uwfJson<{ thread: string }>(sb, [
        "thread",
        "start",
        DRAFT_REVIEW,
        "-p",
        "Write a note.",
        "--cwd",
        repo,
      ]);
      const exec = await uwf(sb, ["thread", "exec", thread]);
      expect(exec.code, exec.stderr).toBe(0);
      const sent = await uwf(sb, ["thread", "trace", thread, "--otlp", receiver.url]);
      expect(sent.code, sent.stderr).toBe(0);
      const spans = receiver.spans();
      expect(spans.map((s) => s.name)).toEqual([
        "invoke_workflow draft-review",
        "invoke_agent writer",
        "chat fake-model",
        "execute_tool write_file",
        "chat fake-model",
      ]);
      expectOneTree(spans);
      const [, step, chat, tool] = spans;
      expect(step!.attributes).toMatchObject({
        "gen_ai.request.model": "fake-model",
        "gen_ai.response.model": "fake-model",
        "uwf.agent.adapter": "uwf-builtin",
      });
      expect(step!.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
      expect(chat).toMatchObject({ kind: 3, parentSpanId: step!.spanId });
      expect(chat!.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "fake-model",
        "uwf.timing": "estimated",
      });
      expect(chat!.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
      expect(tool).toMatchObject({ parentSpanId: step!.spanId, status: { code: 0 } });
      expect(tool!.attributes).toMatchObject({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "write_file",
      });
    } finally {
      await llm.close();
    }
  });

  it("puts a fan-out's children in the parent's trace, under the step that fanned out", async () => {
    writeFileSync(
      join(sb.work, "plan.cjs"),
      `console.log(JSON.stringify({ $status: "ready", files: ["a", "b"] }));`,
    );
    writeFileSync(
      join(sb.work, "child.cjs"),
      `console.log(JSON.stringify({ $status: "done", task: process.env.UWF_TASK }));`,
    );
    writeFileSync(
      join(sb.work, "fan.yaml"),
      `name: fan
roles:
  plan:
    run: [${JSON.stringify(process.execPath)}, plan.cjs]
    frontmatter:
      type: object
      required: [$status, files]
      properties:
        $status: { const: ready }
        files: { type: array, items: { type: string } }
  work:
    run: [${JSON.stringify(process.execPath)}, child.cjs]
    frontmatter:
      type: object
      required: [$status, task]
      properties:
        $status: { const: done }
        task: { type: string }
  collect:
    join: true
    frontmatter:
      type: object
      required: [$status, results]
      properties:
        $status: { const: done }
        results: { type: array }
graph:
  $START:
    new: { role: plan, prompt: "Plan." }
    resume: { role: plan, prompt: "Plan again." }
  plan:
    ready:
      role: collect
      prompt: "item {{{index}}} {{{item}}}"
      fanout: { over: "{{{files}}}", role: work }
  collect:
    done: { role: $END, prompt: "All done." }
`,
    );
    const { thread } = await startThread(sb, join(sb.work, "fan.yaml"), "Fan out.");
    const exec = await uwf(sb, ["thread", "exec", thread, "-c", "5"]);
    expect(exec.code, exec.stderr).toBe(0);
    const doc = await uwfJson<{ threads: string[] }>(sb, [
      "thread",
      "trace",
      thread,
      "--otlp",
      receiver.url,
    ]);
    expect(doc.threads).toHaveLength(3);
    const spans = receiver.spans();
    const root = expectOneTree(spans);
    expect(root.attributes["uwf.thread.id"]).toBe(thread);
    const plan = spans.find((s) => s.name === "script plan")!;
    const children = spans.filter((s) => s.name === "invoke_workflow fan/work");
    expect(children).toHaveLength(2);
    for (const child of children) {
      expect(child.parentSpanId).toBe(plan.spanId);
      expect(child.attributes["uwf.parent.thread"]).toBe(thread);
    }
    expect(spans.find((s) => s.name === "join collect")?.parentSpanId).toBe(root.spanId);
    // A child traced alone lands in the same trace, in the same place.
    const child = children[0]!.attributes["uwf.thread.id"] as string;
    const alone = await uwf(sb, ["thread", "trace", child]);
    const aloneSpans = spansOfJson(JSON.parse(alone.stdout) as OtlpJson);
    expect(aloneSpans[0]).toMatchObject({
      traceId: root.traceId,
      spanId: children[0]!.spanId,
      parentSpanId: plan.spanId,
    });
  });

  it("fails with a clear error when no collector takes the trace", async () => {
    const thread = await completedThread();
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const sent = await uwf(sb, ["thread", "trace", thread, "--otlp", `http://127.0.0.1:${port}`]);
    expect(sent.code).toBe(1);
    expect(sent.stderr).toContain(
      `sending the trace to http://127.0.0.1:${port}/v1/traces failed: connect ECONNREFUSED`,
    );
    expect(sent.stderr).toContain("ECONNREFUSED");

    const refusing = await startOtlpReceiver({ status: 503 });
    try {
      const refused = await uwf(sb, [
        "thread",
        "trace",
        thread,
        "--otlp",
        refusing.url,
        "--format",
        "json",
      ]);
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.stderr)).toMatchObject({
        error: { code: "OTLP_EXPORT_FAILED" },
      });
      expect(refused.stderr).toContain("HTTP 503");
    } finally {
      await refusing.close();
    }
  });
});

describe("live export during thread exec (OTEL_EXPORTER_OTLP_ENDPOINT)", () => {
  it("sends each exec's steps, and the run once the thread completes, with the ids thread trace derives", async () => {
    const agent = mockAgent(reviewScenario());
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Write a note.");
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    const first = await uwf(sb, ["thread", "exec", thread, "-c", "2", "--agent", agent], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]).toMatchObject({ path: "/v1/traces", protocol: "http/protobuf" });
    expect(receiver.requests[0]!.spans.map((s) => s.name)).toEqual([
      "invoke_agent writer",
      "invoke_agent reviewer",
    ]);
    const second = await uwf(sb, ["thread", "exec", thread, "-c", "2", "--agent", agent], {
      env,
    });
    expect(second.code, second.stderr).toBe(0);
    expect(receiver.requests[1]!.spans.map((s) => s.name)).toEqual([
      "invoke_workflow draft-review",
      "invoke_agent writer",
      "invoke_agent reviewer",
    ]);
    const live = receiver.spans();
    const root = expectOneTree(live);
    expect(root.attributes["uwf.thread.status"]).toBe("completed");

    // After the fact: the same trace, the same spans, the same ids.
    const after = spansOfJson(JSON.parse((await uwf(sb, ["thread", "trace", thread])).stdout));
    const key = (s: { spanId: string; parentSpanId?: string | null; traceId: string }) =>
      `${s.traceId}/${s.spanId}/${s.parentSpanId || ""}`;
    expect(new Set(live.map(key))).toEqual(new Set(after.map(key)));
  });

  it("speaks http/json to a traces endpoint given whole, with the headers and service asked for", async () => {
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Write a note.");
    const exec = await uwf(sb, ["thread", "exec", thread, "--agent", mockAgent(reviewScenario())], {
      env: {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20t0ken",
        OTEL_SERVICE_NAME: "nightly",
      },
    });
    expect(exec.code, exec.stderr).toBe(0);
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect([request!.protocol, request!.headers.authorization]).toEqual([
      "http/json",
      "Bearer t0ken",
    ]);
    expect(request!.spans).toHaveLength(1);
    expect(request!.spans[0]).toMatchObject({
      name: "invoke_agent writer",
      resource: { "service.name": "nightly" },
    });
  });

  it("never fails the exec: a collector down, silent or spoken to in grpc is said on stderr and logged", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    // A collector that takes the request and never answers.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const cases: [Record<string, string>, string][] = [
        [{ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` }, "ECONNREFUSED"],
        [
          { OTEL_EXPORTER_OTLP_ENDPOINT: silentUrl, OTEL_EXPORTER_OTLP_TIMEOUT: "300" },
          "no answer within 0.3 s",
        ],
        [
          { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
          'OTEL_EXPORTER_OTLP_PROTOCOL is "grpc": uwf sends http/protobuf or http/json',
        ],
      ];
      for (const [env, why] of cases) {
        const { thread } = await startThread(sb, DRAFT_REVIEW, "Write a note.");
        const exec = await uwf(
          sb,
          ["thread", "exec", thread, "--agent", mockAgent(reviewScenario())],
          { env },
        );
        expect(exec.code, exec.stderr).toBe(0);
        expect(exec.stderr).toContain("uwf: the trace was not exported (");
        expect(exec.stderr).toContain(why);
        const show = await uwfJson<{ status: string; steps: number }>(sb, [
          "thread",
          "show",
          thread,
        ]);
        expect(show).toMatchObject({ status: "idle", steps: 1 });
      }
      expect(receiver.requests).toHaveLength(0);
      const log = await uwfJson<{ events: { event: string; reason: string; spans: number }[] }>(
        sb,
        ["log", "show"],
      );
      const failed = log.events.filter((e) => e.event === "trace.failed");
      expect(failed.map((e) => e.spans)).toEqual([1, 1, 0]);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("ends an export in flight at once on Ctrl-C, the step kept", async () => {
    let arrived: () => void = () => undefined;
    const requestArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    // Takes the request, never answers: only SIGINT can end the wait before its 10 minutes.
    const silent = createServer(() => arrived());
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const { thread } = await startThread(sb, DRAFT_REVIEW, "Write a note.");
      const exec = startUwf(["thread", "exec", thread, "--agent", mockAgent(reviewScenario())], {
        home: sb.home,
        cwd: sb.work,
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
          OTEL_EXPORTER_OTLP_TIMEOUT: "600000",
        },
      });
      await requestArrived;
      process.kill(exec.pid, "SIGINT");
      const ended = await exec.done;
      // The run had ended: Ctrl-C ends the process as it would any command's (a shell says 130).
      expect([ended.timedOut, ended.signal, ended.code]).toEqual([false, "SIGINT", null]);
      const show = await uwfJson<{ steps: number }>(sb, ["thread", "show", thread]);
      expect(show.steps).toBe(1);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
