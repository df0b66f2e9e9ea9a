#!/usr/bin/env node
// The filesystem and PostgreSQL stores side by side, from the outside: whole `uwf` processes
// timed against a bare `node -e 0` (N0) measured in the same run, printed as ratios (absolute
// milliseconds depend on the machine). Run after `pnpm build`: `pnpm bench:stores`.
//
//   - one `uwf thread exec` step with uwf-mock (the whole process, a fresh thread each run),
//   - `uwf thread list` over 10,000 threads (built through the store API),
//   - steps per second with 12 execs in flight over many three-step threads.
//
// BENCH_RUNS sets the samples per figure (median reported, default 5; the throughput figure
// takes min(BENCH_RUNS, 3) runs of BENCH_THREADS threads, default 36). The PostgreSQL server is
// a throwaway one from the machine's binaries (test-utils `startPostgres`), on 127.0.0.1.
// Every child runs without NODE_EXTRA_CA_CERTS and UWF_* variables, N0 included.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildManyThreads } from "./fixtures.mjs";
import { relayAgent, relayThroughput } from "./throughput.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const { openStore } = await import(`${root}packages/store/dist/index.js`);
const { startPostgres } = await import(`${root}packages/test-utils/dist/index.js`);
const node = process.execPath;
const uwfBin = join(root, "packages/cli/bin/uwf.cjs");
const mockBin = join(root, "packages/agent-mock/bin/uwf-mock.cjs");
const runs = Number(process.env.BENCH_RUNS ?? 5);
const throughputRuns = Math.min(runs, 3);
const throughputThreads = Number(process.env.BENCH_THREADS ?? 36);
const IN_FLIGHT = 12;
const LIST_THREADS = 10_000;

const baseEnv = {};
for (const [name, value] of Object.entries(process.env))
  if (!name.startsWith("UWF_") && name !== "NODE_EXTRA_CA_CERTS") baseEnv[name] = value;

const work = mkdtempSync(join(tmpdir(), "uwf-bench-stores-"));
const median = (samples) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];

/** Median wall time of `runs` runs of `node argsFor(i)` after one warm-up; each must exit 0. */
function time(argsFor, env) {
  const samples = [];
  for (let i = 0; i <= runs; i++) {
    const args = argsFor(i);
    const started = performance.now();
    const result = spawnSync(node, args, {
      env,
      cwd: work,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 120_000,
    });
    const ms = performance.now() - started;
    if (result.status !== 0)
      throw new Error(`node ${args.join(" ")} failed (${result.status}):\n${result.stderr}`);
    if (i > 0) samples.push(ms);
  }
  return median(samples);
}

function uwfSync(env, ...args) {
  const result = spawnSync(node, [uwfBin, ...args], { env, cwd: work, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`uwf ${args.join(" ")} failed:\n${result.stderr}`);
  return result.stdout.trim();
}

/** A machine for one backend: its UWF_HOME, config.yaml and environment. */
function machine(name, store) {
  const home = mkdtempSync(join(work, `${name}-`));
  const hello = join(home, "hello.yaml");
  writeFileSync(hello, "steps:\n  - role: greeter\n    output: { $status: done, greeting: hi }\n");
  writeFileSync(
    join(home, "config.yaml"),
    JSON.stringify({
      store,
      host: "bench",
      agents: {
        relay: relayAgent(home),
        hello: { command: node, args: [mockBin, "--scenario", hello] },
      },
    }),
  );
  return { home, store, env: { ...baseEnv, UWF_HOME: home, HOME: home } };
}

/** Median ms of one `thread exec` step with uwf-mock, a fresh thread each run. */
function execOneStep(m) {
  uwfSync(m.env, "workflow", "add", join(root, "examples/hello.yaml"));
  const fresh = Array.from({ length: runs + 1 }, () =>
    uwfSync(m.env, "thread", "start", "hello", "-p", "bench"),
  );
  return time((i) => [uwfBin, "thread", "exec", fresh[i], "--agent", "hello"], m.env);
}

/** Median ms of `uwf thread list` over 10,000 threads. */
async function listMany(m) {
  const hash = JSON.parse(
    uwfSync(m.env, "workflow", "add", join(root, "examples/hello.yaml"), "--format", "json"),
  ).hash;
  const backends = { postgres: () => import(`${root}packages/store-postgres/dist/index.js`) };
  const store = await openStore({ home: m.home, url: m.store, host: "bench", backends });
  try {
    await buildManyThreads(store, hash, LIST_THREADS, work);
  } finally {
    await store.close();
  }
  return time(() => [uwfBin, "thread", "list"], m.env);
}

/** Median steps per second: `throughputThreads` three-step threads, 12 execs in flight. */
function throughput(m) {
  return relayThroughput({
    env: m.env,
    cwd: work,
    threads: throughputThreads,
    inFlight: IN_FLIGHT,
    runs: throughputRuns,
  });
}

let server = null;
try {
  const n0 = time(() => ["-e", "0"], baseEnv);
  console.log(
    `N0 = node -e 0: ${n0.toFixed(1)} ms, NODE_EXTRA_CA_CERTS unset in every child's env; ` +
      `medians of ${runs} runs (throughput: ${throughputRuns} runs of ${throughputThreads} threads × 3 steps)`,
  );
  server = await startPostgres();
  console.log(`PostgreSQL ${server.version} on 127.0.0.1:${server.port} (fsync off, throwaway)\n`);
  const backends = [
    { name: "fs", store: () => "fs" },
    { name: "postgres", store: () => server.createDatabase() },
  ];
  const results = {};
  for (const backend of backends) {
    const r = {};
    r.exec = execOneStep(machine(backend.name, await backend.store()));
    r.list = await listMany(machine(backend.name, await backend.store()));
    r.stepsPerSecond = await throughput(machine(backend.name, await backend.store()));
    results[backend.name] = r;
  }
  const { fs, postgres } = results;
  const ratio = (ms) => `${(ms / n0).toFixed(2)}× N0`.padStart(12);
  const head = (a, b, c) => console.log(`${a.padEnd(52)} ${b.padStart(12)} ${c.padStart(12)}`);
  head("", "fs", "postgres");
  head("uwf thread exec, one uwf-mock step (whole process)", ratio(fs.exec), ratio(postgres.exec));
  head(
    `uwf thread list over ${LIST_THREADS.toLocaleString("en")} threads`,
    ratio(fs.list),
    ratio(postgres.list),
  );
  head(
    `steps per second, ${IN_FLIGHT} execs in flight`,
    fs.stepsPerSecond.toFixed(2),
    postgres.stepsPerSecond.toFixed(2),
  );
  head(
    "  machine time per step (1 / steps per second)",
    ratio(1000 / fs.stepsPerSecond),
    ratio(1000 / postgres.stepsPerSecond),
  );
  console.log(
    `\nabsolute: exec ${fs.exec.toFixed(0)} / ${postgres.exec.toFixed(0)} ms, list ${fs.list.toFixed(0)} / ${postgres.list.toFixed(0)} ms (fs / postgres)`,
  );
} finally {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
}
