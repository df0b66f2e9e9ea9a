#!/usr/bin/env node
// CPU time per step on the filesystem and PostgreSQL stores: `uwf thread exec` of a one-step
// thread with uwf-mock, run under `perf stat`, whose task-clock counts uwf and its adapter (not
// the database server), warm start off so that every adapter ends before uwf does. CPU time,
// not wall time, so the figure holds on a busy machine; the stores' steps are interleaved so
// that the machine's load weighs on both alike. Run after `pnpm build`: `pnpm bench:step-cpu`.
//
// BENCH_RUNS sets the steps per store (default 20; the mean and median are printed, with a bare
// `node -e 0` as the floor). BENCH_ROOT measures another checkout's build with this script (a
// before/after comparison). The PostgreSQL server is a throwaway one (test-utils
// `startPostgres`) on 127.0.0.1.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL("..", import.meta.url));
const root = process.env.BENCH_ROOT ? join(process.env.BENCH_ROOT, "/") : here;
const { startPostgres } = await import(`${here}packages/test-utils/dist/index.js`);
const node = process.execPath;
const uwfBin = join(root, "packages/cli/bin/uwf.cjs");
const mockBin = join(root, "packages/agent-mock/bin/uwf-mock.cjs");
const runs = Number(process.env.BENCH_RUNS ?? 20);

const baseEnv = {};
for (const [name, value] of Object.entries(process.env))
  if (!name.startsWith("UWF_") && name !== "NODE_EXTRA_CA_CERTS") baseEnv[name] = value;

const work = mkdtempSync(join(tmpdir(), "uwf-bench-step-cpu-"));
const statFile = join(work, "perf-stat.txt");

/** CPU ms (perf's task-clock) of `node args`, its children included; it must exit 0. */
function cpuMs(args, env) {
  const result = spawnSync(
    "perf",
    ["stat", "-x", ",", "-e", "task-clock", "-o", statFile, node, ...args],
    { env, cwd: work, stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 },
  );
  if (result.status !== 0)
    throw new Error(`node ${args.join(" ")} failed (${result.status}):\n${result.stderr}`);
  const line = readFileSync(statFile, "utf8")
    .split("\n")
    .find((row) => row.includes("task-clock"));
  return Number(line.split(",")[0]);
}

function uwfSync(env, ...args) {
  const result = spawnSync(node, [uwfBin, ...args], { env, cwd: work, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`uwf ${args.join(" ")} failed:\n${result.stderr}`);
  return result.stdout.trim();
}

function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = samples.reduce((sum, ms) => sum + ms, 0) / samples.length;
  return { mean, median: sorted[Math.floor(sorted.length / 2)] };
}

/** A home on `store` with the hello workflow and `runs + 1` fresh threads; `step()` runs one. */
function machine(name, store) {
  const home = mkdtempSync(join(work, `${name}-`));
  const scenario = join(home, "hello.yaml");
  writeFileSync(
    scenario,
    "steps:\n  - role: greeter\n    output: { $status: done, greeting: hi }\n",
  );
  writeFileSync(
    join(home, "config.yaml"),
    JSON.stringify({
      store,
      host: "bench",
      agents: { hello: { command: node, args: [mockBin, "--scenario", scenario] } },
    }),
  );
  // A warm adapter process may end after uwf, unreaped, and its CPU would go uncounted: each
  // adapter here is a child uwf waits for.
  const env = { ...baseEnv, UWF_HOME: home, HOME: home, UWF_WARM_START: "0" };
  uwfSync(env, "workflow", "add", join(root, "examples/hello.yaml"));
  const threads = Array.from({ length: runs + 1 }, () =>
    uwfSync(env, "thread", "start", "hello", "-p", "bench"),
  );
  return {
    samples: [],
    step(i) {
      const ms = cpuMs([uwfBin, "thread", "exec", threads[i], "--agent", "hello"], env);
      // The first step of each store warms its caches (code cache, compiled validators).
      if (i > 0) this.samples.push(ms);
    },
  };
}

const postgres = await startPostgres();
try {
  const stores = { fs: machine("fs", "fs"), pg: machine("pg", await postgres.createDatabase()) };
  const bare = [];
  // Interleaved, so that the machine's load weighs on both stores alike.
  for (let i = 0; i <= runs; i++) {
    stores.fs.step(i);
    stores.pg.step(i);
    bare.push(cpuMs(["-e", "0"], baseEnv));
  }
  const floor = summary(bare);
  const fs = summary(stores.fs.samples);
  const pg = summary(stores.pg.samples);
  const ms = (value) => `${value.toFixed(0)} ms`;
  console.log(`CPU per one-step exec (task-clock, uwf and its adapter), ${runs} steps each`);
  console.log(`  node -e 0:   mean ${ms(floor.mean)}, median ${ms(floor.median)}`);
  console.log(`  filesystem:  mean ${ms(fs.mean)}, median ${ms(fs.median)}`);
  console.log(`  PostgreSQL:  mean ${ms(pg.mean)}, median ${ms(pg.median)}`);
  console.log(
    `  PostgreSQL / filesystem: ${(pg.mean / fs.mean).toFixed(2)}× (mean), ${(pg.median / fs.median).toFixed(2)}× (median)`,
  );
} finally {
  await postgres.stop();
  rmSync(work, { recursive: true, force: true });
}
