import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StepPayload } from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { appendStep, openHomeStore, seedThread } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { relay } from "../__fixtures__/workflows.js";
import { threadTrace } from "./thread-trace.js";

let home: string;
let store: Store;
beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "uwf-trace-"));
  store = await openHomeStore(home);
});
afterEach(async () => {
  await store.close();
  rmSync(home, { recursive: true, force: true });
});

/** A writer step as agent-kit stores one: a model, two turns, a tool call that failed. */
async function agentStep(thread: string): Promise<string> {
  const { cas, threads } = store;
  const pointer = await threads.get(thread);
  const turns = [
    await cas.put(cas.builtin("turn"), {
      text: "reading",
      toolCalls: [{ name: "read_file", input: { path: "a" }, output: "no", isError: true }],
      usage: { inputTokens: 100, outputTokens: 10 },
    }),
    await cas.put(cas.builtin("turn"), { text: "done", toolCalls: [], usage: null }),
  ];
  const step: StepPayload = {
    start: pointer.start,
    prev: null,
    role: "writer",
    output: await cas.put(
      (
        await cas.getPayload<{ roles: Record<string, { frontmatter: string }> }>(
          pointer.workflowHash,
        )
      ).roles.writer!.frontmatter,
      { $status: "written", text: "hi" },
    ),
    body: await cas.putText(""),
    detail: await cas.put(cas.builtin("stepDetail"), {
      adapter: "builtin",
      model: "fake-model",
      sessionId: null,
      turns,
      sessions: {},
      rawOutput: "",
      attempts: [],
    }),
    agent: "uwf-builtin",
    edgePrompt: "Write a line.",
    assembledPrompt: await cas.putText(""),
    cwd: pointer.cwd,
    startedAtMs: 1_000,
    completedAtMs: 2_000,
    usage: {
      inputTokens: 100,
      outputTokens: 10,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      costUsd: 0.25,
      turns: 2,
      durationMs: 1_000,
    },
    attempts: 1,
  };
  const hash = await cas.put(cas.builtin("step"), step);
  await threads.swap({ ...pointer, head: hash, steps: 1, currentRole: "writer" }, pointer.rev ?? 0);
  return hash;
}

describe("threadTrace", () => {
  it("rebuilds the run, each step, its turns and tool calls, with ids from hashes", async () => {
    const { thread } = await seedThread(store, {
      workflow: relay,
      prompt: "p",
      cwd: home,
      createdAtMs: 500,
    });
    const writer = await agentStep(thread);
    const reviewer = await appendStep(store, thread, {
      role: "reviewer",
      output: { $status: "approved" },
      startedAtMs: 3_000,
    });
    const spans = await threadTrace(store, thread);
    const byName = new Map(spans.map((s) => [s.name, s]));
    expect([...byName.keys()].sort()).toEqual([
      "chat fake-model",
      "execute_tool read_file",
      "invoke_agent reviewer",
      "invoke_agent writer",
      "invoke_workflow relay",
    ]);
    expect(spans).toHaveLength(6); // two chat spans
    const run = byName.get("invoke_workflow relay")!;
    const step = byName.get("invoke_agent writer")!;
    const tool = byName.get("execute_tool read_file")!;
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([run.traceId]));
    expect(run.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(run.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(run.traceId.slice(0, 16)).not.toBe(run.spanId);
    expect(run.parentSpanId).toBeNull();
    expect(run).toMatchObject({ startMs: 500, endMs: 3_001 });
    expect(run.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_workflow",
      "gen_ai.workflow.name": "relay",
      "uwf.thread.id": thread,
    });
    expect(step.parentSpanId).toBe(run.spanId);
    expect(step).toMatchObject({ startMs: 1_000, endMs: 2_000, status: { code: "unset" } });
    expect(step.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "writer",
      "gen_ai.request.model": "fake-model",
      "gen_ai.response.model": "fake-model",
      "gen_ai.usage.input_tokens": 100,
      "gen_ai.usage.output_tokens": 10,
      "uwf.usage.cost_usd": 0.25,
      "uwf.step.hash": writer,
      "uwf.step.status": "written",
      "uwf.step.number": 1,
    });
    // Unknown usage is left out, never reported as zero.
    expect(step.attributes).not.toHaveProperty("gen_ai.usage.cache_read.input_tokens");
    const chats = spans.filter((s) => s.name === "chat fake-model");
    expect(chats.map((c) => [c.startMs, c.endMs])).toEqual([
      [1_000, 1_250],
      [1_500, 2_000],
    ]);
    expect(chats[0]!.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 100 });
    expect(tool).toMatchObject({
      parentSpanId: step.spanId,
      startMs: 1_250,
      endMs: 1_500,
      status: { code: "error" },
    });
    expect(tool.attributes).toMatchObject({
      "gen_ai.tool.name": "read_file",
      "error.type": "tool_error",
    });
    expect(byName.get("invoke_agent reviewer")!.attributes["uwf.step.hash"]).toBe(reviewer);
    // Built again: the same spans, ids and all.
    expect(await threadTrace(store, thread)).toEqual(spans);
  });

  it("builds only the steps asked for, and the run span only when asked", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "p", cwd: home });
    await appendStep(store, thread, { role: "writer", output: { $status: "written", text: "a" } });
    const second = await appendStep(store, thread, {
      role: "reviewer",
      output: { $status: "approved" },
    });
    const all = await threadTrace(store, thread);
    const some = await threadTrace(store, thread, { steps: new Set([second]), run: false });
    expect(some).toEqual(all.filter((s) => s.attributes["uwf.step.hash"] === second));
  });
});
