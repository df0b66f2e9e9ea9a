// Builds large stores for the benchmarks straight through the store API (no processes), so a
// 10,000-step thread or 10,000 threads take seconds to make, on any backend: callers pass a
// store from `openStore`. Run after `pnpm build`.
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const { newUlid } = await import(`${root}packages/util/dist/index.js`);

const usage = {
  inputTokens: null,
  outputTokens: null,
  cacheReadTokens: null,
  cacheWriteTokens: null,
  costUsd: null,
  turns: null,
  durationMs: 1,
};

/** The payload of the loop workflow's worker step after `round` rounds, taking 1 ms at `atMs`. */
function workerStep({ start, prev, round, output, body, detail, prompt, cwd, atMs }) {
  return {
    start,
    prev,
    role: "worker",
    output,
    body,
    detail,
    agent: "bench",
    edgePrompt: `Round ${round} done; do the next one.`,
    assembledPrompt: prompt,
    cwd,
    startedAtMs: atMs,
    completedAtMs: atMs + 1,
    usage,
    attempts: 1,
  };
}

/** A thread of `workflowHash` (the loop workflow) with `steps` worker steps, all `again`. */
export async function buildLongThread(store, workflowHash, steps, cwd) {
  const { cas, threads } = store;
  const workflow = await cas.getPayload(workflowHash, "workflow");
  const schema = workflow.roles.worker.frontmatter;
  const now = Date.now();
  let batch = cas.batch();
  const start = await batch.put(cas.builtin("start"), {
    workflow: workflowHash,
    prompt: "bench",
    cwd,
    createdAtMs: now,
  });
  const body = batch.putText("round done");
  const prompt = batch.putText("assembled prompt");
  const detail = await batch.put(cas.builtin("detail"), { adapter: "bench" });
  const stepType = cas.builtin("step");
  let prev = null;
  for (let i = 0; i < steps; i++) {
    if (i % 500 === 499) {
      await batch.flush();
      batch = cas.batch();
    }
    const output = await batch.put(schema, { $status: "again", round: i + 1 });
    prev = await batch.put(
      stepType,
      workerStep({ start, prev, round: i, output, body, detail, prompt, cwd, atMs: now }),
    );
  }
  await batch.flush();
  const at = new Date(now).toISOString();
  const thread = newUlid(now);
  await threads.create({
    thread,
    workflow: workflow.name,
    workflowHash,
    start,
    head: prev ?? start,
    status: "idle",
    currentRole: steps > 0 ? "worker" : null,
    suspended: null,
    steps,
    cwd,
    createdAt: at,
    updatedAt: at,
  });
  return thread;
}

/** `count` idle threads of one workflow, each with just its StartNode. */
export async function buildManyThreads(store, workflowHash, count, cwd) {
  const { cas, threads } = store;
  const workflow = await cas.getPayload(workflowHash, "workflow");
  const now = Date.now();
  for (let i = 0; i < count; i++) {
    const createdAtMs = now - i * 1000;
    const start = await cas.put(cas.builtin("start"), {
      workflow: workflowHash,
      prompt: `bench ${i}`,
      cwd,
      createdAtMs,
    });
    const at = new Date(createdAtMs).toISOString();
    await threads.create({
      thread: newUlid(createdAtMs),
      workflow: workflow.name,
      workflowHash,
      start,
      head: start,
      status: i % 3 === 0 ? "completed" : "idle",
      currentRole: null,
      suspended: null,
      steps: 0,
      cwd,
      createdAt: at,
      updatedAt: at,
    });
  }
}

/** Why a suspended bench thread waits: a human, as nothing resumes it. */
const benchSuspension = { role: "worker", reason: "bench", kind: "human" };

/**
 * `count` threads of the loop workflow with `steps` steps each, every step with its own output,
 * body and assembled prompt (as real steps have), one in ten holding the word "needle" in its
 * body: the store `uwf thread grep` searches in the benchmark. With `suspendedEvery`, one in that
 * many is suspended.
 */
export async function buildManyShortThreads(
  store,
  workflowHash,
  count,
  steps,
  cwd,
  { suspendedEvery } = {},
) {
  const { cas, threads } = store;
  const workflow = await cas.getPayload(workflowHash, "workflow");
  const schema = workflow.roles.worker.frontmatter;
  const stepType = cas.builtin("step");
  const detail = await cas.put(cas.builtin("detail"), { adapter: "bench" });
  const now = Date.now();
  let batch = cas.batch();
  const pointers = [];
  for (let t = 0; t < count; t++) {
    if (t % 200 === 199) {
      await batch.flush();
      batch = cas.batch();
    }
    const createdAtMs = now - t * 1000;
    const start = await batch.put(cas.builtin("start"), {
      workflow: workflowHash,
      prompt: `bench thread ${t}`,
      cwd,
      createdAtMs,
    });
    let prev = null;
    for (let i = 0; i < steps; i++) {
      const output = await batch.put(schema, { $status: "again", round: i + 1 });
      const word = (t * steps + i) % 10 === 0 ? "needle" : "hay";
      const body = batch.putText(`Thread ${t}, round ${i + 1}.\nFound ${word} in the stack.\n`);
      const prompt = batch.putText(
        `## Goal\nDo one more round of work.\n\n## Task\nbench thread ${t}\n\n## Moderator Instruction\nRound ${i} done; do the next one.\n`,
      );
      prev = await batch.put(
        stepType,
        workerStep({ start, prev, round: i, output, body, detail, prompt, cwd, atMs: createdAtMs }),
      );
    }
    const at = new Date(createdAtMs).toISOString();
    const suspended = suspendedEvery && t % suspendedEvery === 1;
    pointers.push({
      thread: newUlid(createdAtMs),
      workflow: workflow.name,
      workflowHash,
      start,
      head: prev ?? start,
      status: suspended ? "suspended" : "idle",
      currentRole: steps > 0 || suspended ? "worker" : null,
      suspended: suspended ? benchSuspension : null,
      steps,
      cwd,
      createdAt: at,
      updatedAt: at,
    });
  }
  await batch.flush();
  for (const pointer of pointers) await threads.create(pointer);
}
