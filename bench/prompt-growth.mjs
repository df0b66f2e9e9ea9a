#!/usr/bin/env node
// Prompt size per step as a thread grows (issue 7): builds one 200-step thread through the
// store API, then composes, with agent-kit's own code, the prompt each role would get at
// several lengths. The worker's prompt holds only the steps since it last ran; the reviewer,
// which has not run yet, sees every round, so its prompt grows until the history quota
// (20,000 characters by default) and must then stay flat. Run after `pnpm build`:
// `node bench/prompt-growth.mjs` (PROMPT_STEPS=200, BODY_CHARS=600).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const dist = (pkg) => `${root}packages/${pkg}/dist/index.js`;
const { openStore } = await import(dist("store"));
const kit = await import(dist("agent-kit"));
const { requireRoleExits } = await import(dist("engine"));

const total = Number(process.env.PROMPT_STEPS ?? 200);
const bodyChars = Number(process.env.BODY_CHARS ?? 600);
const home = mkdtempSync(join(tmpdir(), "uwf-bench-prompt-"));
try {
  const uwf = (...args) =>
    execFileSync(process.execPath, [join(root, "packages/cli/bin/uwf.cjs"), ...args], {
      env: { ...process.env, UWF_HOME: home },
    }).toString();
  const workflowHash = JSON.parse(
    uwf("--format", "json", "workflow", "add", join(root, "bench/review-loop.yaml")),
  ).hash;
  const store = await openStore({ home });
  const { cas } = store;
  const workflow = await cas.getPayload(workflowHash, "workflow");
  const now = Date.now();
  const start = await cas.put(cas.builtin("start"), {
    workflow: workflowHash,
    prompt: "Improve the parser, one round at a time.",
    cwd: home,
    createdAtMs: now,
  });
  const detail = await cas.put(cas.builtin("detail"), { adapter: "bench" });
  const prompt = await cas.putText("assembled prompt");
  const heads = [];
  let prev = null;
  const batch = cas.batch();
  for (let i = 1; i <= total; i++) {
    const output = await batch.put(workflow.roles.worker.frontmatter, {
      $status: "again",
      round: i,
    });
    const body = batch.putText(
      `Round ${i}: ${"changed the tokenizer and its tests. ".repeat(40)}`.slice(0, bodyChars),
    );
    prev = await batch.put(cas.builtin("step"), {
      start,
      prev,
      role: "worker",
      output,
      body,
      detail,
      agent: "bench",
      edgePrompt: `Round ${i - 1} done; do the next one.`,
      assembledPrompt: prompt,
      cwd: home,
      startedAtMs: now + i,
      completedAtMs: now + i + 1,
      usage: {
        inputTokens: null,
        outputTokens: null,
        cacheReadTokens: null,
        cacheWriteTokens: null,
        costUsd: null,
        turns: null,
        durationMs: 1,
      },
      attempts: 1,
    });
    heads.push(prev);
  }
  await batch.flush();

  async function promptAt(steps, role) {
    const roleDefinition = workflow.roles[role];
    const schema = (await cas.get(roleDefinition.frontmatter)).payload;
    const history = await kit.collectHistory(cas, {
      head: heads[steps - 1],
      start,
      role,
    });
    const text = kit.composePrompt({
      outputFormat: kit.buildOutputFormatInstruction(requireRoleExits(workflow.name, role, schema)),
      workflowName: workflow.name,
      role,
      roleDefinition,
      task: "Improve the parser, one round at a time.",
      history,
      edgePrompt: `Review rounds up to ${steps}.`,
    });
    return { chars: text.length, entries: history.entries.length, truncated: history.truncated };
  }

  const sizes = [1, 2, 5, 10, 20, 30, 40, 50, 100, 150, 200].filter((n) => n <= total);
  console.log(`prompt size per step (${bodyChars}-character bodies, default history quota)`);
  console.log("steps | worker prompt | reviewer prompt | reviewer history entries");
  console.log("----- | ------------- | --------------- | ------------------------");
  const reviewer = [];
  for (const n of sizes) {
    const w = await promptAt(n, "worker");
    const r = await promptAt(n, "reviewer");
    reviewer.push(r.chars);
    console.log(
      `${String(n).padStart(5)} | ${String(w.chars).padStart(13)} | ${String(r.chars).padStart(15)} | ${r.entries}${r.truncated ? " (quota reached)" : ""}`,
    );
  }
  await store.close();
  const capped = reviewer.at(-1);
  const peak = Math.max(...reviewer);
  const ok = peak <= kit.DEFAULT_HISTORY_QUOTA + 5_000 && capped <= peak;
  console.log(
    `reviewer prompt: peak ${peak} characters, ${capped} at ${total} steps; history quota ${kit.DEFAULT_HISTORY_QUOTA}: ${ok ? "stops growing ✓" : "KEEPS GROWING ✗"}`,
  );
  if (!ok) process.exitCode = 1;
} finally {
  rmSync(home, { recursive: true, force: true });
}
