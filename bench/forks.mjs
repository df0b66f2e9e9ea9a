#!/usr/bin/env node
// `uwf thread tree` over a family of 1,000 forks and `uwf usage` over 1,000 threads × 20 steps,
// timed as whole processes against a bare `node -e 0` (N0) in the same run, ratios printed
// (DESIGN §14). Run after `pnpm build`: `pnpm bench:forks`. Like bench/run.mjs, every figure is
// measured without NODE_EXTRA_CA_CERTS (the headline) and then with it. BENCH_RUNS sets the
// samples per figure (median reported); BENCH_CA=0 skips the second pass.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

if (process.env.BENCH_PASS === undefined) {
  const bundle = process.env.NODE_EXTRA_CA_CERTS || "/etc/ssl/certs/ca-certificates.crt";
  const passes = [{ label: "without NODE_EXTRA_CA_CERTS (headline)", ca: null }];
  if (process.env.BENCH_CA !== "0" && existsSync(bundle)) {
    passes.push({ label: `with NODE_EXTRA_CA_CERTS=${bundle}`, ca: bundle });
  }
  let status = 0;
  for (const pass of passes) {
    console.log(`\n=== ${pass.label} ===`);
    const passEnv = { ...process.env, BENCH_PASS: pass.ca ? "ca" : "headline" };
    delete passEnv.NODE_EXTRA_CA_CERTS;
    if (pass.ca) passEnv.NODE_EXTRA_CA_CERTS = pass.ca;
    const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], {
      env: passEnv,
      stdio: "inherit",
    });
    if (pass.ca === null) status = run.status ?? 1;
  }
  process.exit(status);
}

const root = fileURLToPath(new URL("..", import.meta.url));
const { openStore } = await import(`${root}packages/store/dist/index.js`);
const { newUlid } = await import(`${root}packages/util/dist/index.js`);
const { buildManyThreads } = await import("./fixtures.mjs");

const node = process.execPath;
const uwfBin = join(root, "packages/cli/bin/uwf.cjs");
const runs = Number(process.env.BENCH_RUNS ?? 9);
const DAY = 86_400_000;

function timeOnce(args, home) {
  const started = process.hrtime.bigint();
  const result = spawnSync(node, args, {
    env: { ...process.env, UWF_HOME: home },
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 120_000,
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0)
    throw new Error(`node ${args.join(" ")} failed (${result.status}):\n${result.stderr}`);
  return { ms, stdout: result.stdout.toString() };
}

/** Median of `runs` runs after one warm-up; `before` runs before each (not timed). */
function time(args, home, before = () => {}) {
  const samples = [];
  let stdout = "";
  for (let i = 0; i <= runs; i++) {
    before();
    const run = timeOnce(args, home);
    stdout = run.stdout;
    if (i > 0) samples.push(run.ms);
  }
  return { ms: [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)], stdout };
}

function report(name, ms, n0) {
  console.log(
    `${name.padEnd(64)} ${ms.toFixed(1).padStart(8)} ms ${(ms / n0).toFixed(2).padStart(6)}× N0`,
  );
}

/** Steps of the loop workflow after `prev`, each with usage (cost unknown on every 10th). */
async function appendSteps(store, { workflowHash, start, prev, count, firstRound, atMs, agent }) {
  const { cas } = store;
  const workflow = await cas.getPayload(workflowHash, "workflow");
  const schema = workflow.roles.worker.frontmatter;
  const batch = cas.batch();
  const body = batch.putText("round done");
  const prompt = batch.putText("assembled prompt");
  const detail = await batch.put(cas.builtin("detail"), {
    adapter: "bench",
    model: `model-${agent}`,
  });
  const stepType = cas.builtin("step");
  const hashes = [];
  for (let i = 0; i < count; i++) {
    const round = firstRound + i;
    const output = await batch.put(schema, { $status: "again", round });
    prev = await batch.put(stepType, {
      start,
      prev,
      role: "worker",
      output,
      body,
      detail,
      agent: `agent-${agent}`,
      edgePrompt: `Round ${round - 1} done; do the next one.`,
      assembledPrompt: prompt,
      cwd: root,
      startedAtMs: atMs + i * 1000,
      completedAtMs: atMs + i * 1000 + 900,
      usage: {
        inputTokens: 1000,
        outputTokens: 100,
        cacheReadTokens: null,
        cacheWriteTokens: null,
        costUsd: round % 10 === 0 ? null : 0.01,
        turns: 1,
        durationMs: 900,
      },
      attempts: 1,
    });
    hashes.push(prev);
  }
  await batch.flush();
  return hashes;
}

async function startNode(store, workflowHash, atMs, prompt) {
  return store.cas.put(store.cas.builtin("start"), {
    workflow: workflowHash,
    prompt,
    cwd: root,
    createdAtMs: atMs,
  });
}

async function createThread(
  store,
  { workflowHash, start, head, steps, atMs, updatedMs, forkedFrom },
) {
  const thread = newUlid(atMs);
  await store.threads.create({
    thread,
    workflow: "loop",
    workflowHash,
    start,
    head,
    status: "idle",
    currentRole: steps > 0 ? "worker" : null,
    suspended: null,
    steps,
    cwd: root,
    createdAt: new Date(atMs).toISOString(),
    updatedAt: new Date(updatedMs ?? atMs).toISOString(),
    ...(forkedFrom ? { forkedFrom } : {}),
  });
  return thread;
}

const homes = [];
const newHome = () => {
  const home = mkdtempSync(join(tmpdir(), "uwf-bench-forks-"));
  homes.push(home);
  spawnSync(node, [uwfBin, "workflow", "add", "bench/loop.yaml"], {
    env: { ...process.env, UWF_HOME: home },
    cwd: root,
  });
  const show = spawnSync(node, [uwfBin, "workflow", "show", "loop", "--format", "json"], {
    env: { ...process.env, UWF_HOME: home },
    cwd: root,
  });
  return { home, workflowHash: JSON.parse(show.stdout.toString()).hash };
};

try {
  const n0 = time(["-e", "0"], tmpdir()).ms;
  console.log(
    `N0 = node -e 0: ${n0.toFixed(1)} ms (NODE_EXTRA_CA_CERTS ${process.env.NODE_EXTRA_CA_CERTS ? "set" : "unset"}); medians of ${runs} runs\n`,
  );

  // A 20-step thread and 1,000 forks of it, forked at steps 1…20 in turn, each with 2 steps of
  // its own; then the same family among 10,000 unrelated threads.
  const family = newHome();
  const store = await openStore({ home: family.home });
  const t0 = Date.now() - 2 * DAY;
  const start = await startNode(store, family.workflowHash, t0, "family");
  const trunk = await appendSteps(store, {
    ...family,
    start,
    prev: null,
    count: 20,
    firstRound: 1,
    atMs: t0,
    agent: 0,
  });
  const original = await createThread(store, {
    ...family,
    start,
    head: trunk[19],
    steps: 20,
    atMs: t0,
  });
  for (let i = 0; i < 1000; i++) {
    const at = i % 20;
    const atMs = t0 + 60_000 + i * 1000;
    const own = await appendSteps(store, {
      ...family,
      start,
      prev: trunk[at],
      count: 2,
      firstRound: at + 2 + i * 1000,
      atMs,
      agent: i % 3,
    });
    await createThread(store, {
      ...family,
      start,
      head: own[1],
      steps: at + 3,
      atMs,
      forkedFrom: trunk[at],
    });
  }
  const tree = time([uwfBin, "thread", "tree", original, "--format", "json"], family.home);
  const members = JSON.parse(tree.stdout).threads.length;
  report(`uwf thread tree: 1 thread + 1,000 forks (${members} threads)`, tree.ms, n0);
  report("  the same as text", time([uwfBin, "thread", "tree", original], family.home).ms, n0);
  report(
    "  uwf thread show of the same thread (for scale)",
    time([uwfBin, "thread", "show", original], family.home).ms,
    n0,
  );
  await buildManyThreads(store, family.workflowHash, 10_000, root);
  report(
    "uwf thread tree: the same family among 10,000 other threads",
    time([uwfBin, "thread", "tree", original, "--format", "json"], family.home).ms,
    n0,
  );
  await store.close();

  // 1,000 threads × 20 steps, spread over the last 30 days.
  const many = newHome();
  const usageStore = await openStore({ home: many.home });
  const now = Date.now();
  for (let i = 0; i < 1000; i++) {
    const atMs = now - 30 * DAY + i * Math.floor((30 * DAY) / 1000);
    const s = await startNode(usageStore, many.workflowHash, atMs, `usage ${i}`);
    const steps = await appendSteps(usageStore, {
      ...many,
      start: s,
      prev: null,
      count: 20,
      firstRound: 1,
      atMs,
      agent: i % 4,
    });
    await createThread(usageStore, {
      ...many,
      start: s,
      head: steps[19],
      steps: 20,
      atMs,
      updatedMs: atMs + 20_000,
    });
  }
  await usageStore.close();
  const noCache = () => rmSync(join(many.home, "cache", "usage.jsonl"), { force: true });
  const cold = time([uwfBin, "usage", "--format", "json"], many.home, noCache);
  const total = JSON.parse(cold.stdout).total;
  report(`uwf usage: 1,000 threads × 20 steps (${total.steps} steps), no cache`, cold.ms, n0);
  report(
    "  --since 3d, no cache (about 100 threads in range)",
    time([uwfBin, "usage", "--since", "3d"], many.home, noCache).ms,
    n0,
  );
  report(
    "  the same, chains cached by an earlier report",
    time([uwfBin, "usage", "--format", "json"], many.home).ms,
    n0,
  );
  report("  --by thread,agent", time([uwfBin, "usage", "--by", "thread,agent"], many.home).ms, n0);
  report("  --by model", time([uwfBin, "usage", "--by", "model"], many.home).ms, n0);
  report(
    "  --since 3d (about 100 threads in range)",
    time([uwfBin, "usage", "--since", "3d"], many.home).ms,
    n0,
  );
} finally {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
}
