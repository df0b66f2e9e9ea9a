#!/usr/bin/env node
// How `uwf` commands grow with the store, on the filesystem and PostgreSQL: each store is grown
// through the store API to 1k, 10k and 100k threads of one step each (one in ten suspended, the
// rest idle; plus one 10-step thread to show), and at each size every command below runs as a
// whole `uwf` process under `perf stat`, whose task-clock (user + sys CPU of the process, not
// the database server) is steady on a busy machine. Printed per backend: the median CPU time as
// a ratio to a bare `node -e 0`, and the growth exponent log(t2/t1) / log(n2/n1) between
// consecutive sizes (0: flat, 1: linear). Run after `pnpm build`: `pnpm bench:scale`.
//
//   --sizes 1000,10000,100000   thread counts (or BENCH_SIZES), grown in this order
//   --backends fs,postgres      which stores (or BENCH_BACKENDS)
//   --runs 5                    samples per figure, median reported (or BENCH_RUNS)
//   --steps 1                   steps per thread (each with its own output, body and prompt):
//                               100k threads × 3 steps is 0.94 million nodes
//   --long 10000                also a thread of this many steps, for `thread verify <it>`
//   --walks-up-to 100000        time the whole-store walks only up to this many threads (default:
//                               every size); beyond it their cells show "-"
//   --memory                    also the peak RSS of each whole-store walk (and `cas gc`, a dry
//                               run), one run under /usr/bin/time at each size, and the bytes it
//                               grows per node between sizes (issue 29: under 64)
//   --throughput 36             threads per throughput run (0: none): steps per second with 12
//                               `uwf thread exec` in flight over three-step threads (uwf-mock),
//                               on a store of its own per backend, median of min(runs, 3) runs
//
// `--sizes ""` measures the throughput alone.
//
// Targets (issue 29): exponent ≤ 0.1 from 10k to 100k threads for the per-thread and first-page
// commands; whole-store walks on PostgreSQL within 2× the filesystem; PostgreSQL's throughput
// at least 0.8× the filesystem's. Flags mark misses (!).
// The PostgreSQL server is a throwaway one (test-utils `startPostgres`) on 127.0.0.1.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildLongThread, buildManyShortThreads } from "./fixtures.mjs";
import { relayAgent, relayThroughput } from "./throughput.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const { openStore } = await import(`${root}packages/store/dist/index.js`);
const node = process.execPath;
const uwfBin = join(root, "packages/cli/bin/uwf.cjs");

const { values: flags } = parseArgs({
  options: {
    sizes: { type: "string", default: process.env.BENCH_SIZES ?? "1000,10000,100000" },
    backends: { type: "string", default: process.env.BENCH_BACKENDS ?? "fs,postgres" },
    runs: { type: "string", default: process.env.BENCH_RUNS ?? "5" },
    steps: { type: "string", default: "1" },
    long: { type: "string", default: "0" },
    "walks-up-to": { type: "string", default: "Infinity" },
    throughput: { type: "string", default: process.env.BENCH_THREADS ?? "36" },
    memory: { type: "boolean", default: false },
  },
});
const sizes = flags.sizes === "" ? [] : flags.sizes.split(",").map(Number);
const runs = Number(flags.runs);
const stepsPerThread = Number(flags.steps);
const longSteps = Number(flags.long);
const walksUpTo = Number(flags["walks-up-to"]);
const SUSPENDED_EVERY = 10;
const FLAT = 0.1;
const PG_OVER_FS = 2;
const throughputThreads = Number(flags.throughput);
/** Peak RSS may grow at most this many bytes per node of the store (whole-store walks). */
const BYTES_PER_NODE = 64;
const IN_FLIGHT = 12;
/** PostgreSQL's steps per second against the filesystem's, at least. */
const PG_THROUGHPUT = 0.8;

// Per-thread and first-page commands must stay flat; whole-store walks may grow linearly.
const commands = [
  { name: "thread show", args: (t) => ["thread", "show", t.shown], flat: true },
  { name: "step list", args: (t) => ["step", "list", t.shown], flat: true },
  { name: "thread list (first page)", args: () => ["thread", "list"], flat: true },
  {
    name: "thread list --status suspended",
    args: () => ["thread", "list", "--status", "suspended"],
    flat: true,
  },
  { name: "thread list --title x", args: () => ["thread", "list", "--title", "x"] },
  { name: "thread tree", args: (t) => ["thread", "tree", t.shown], flat: true },
  ...(longSteps > 0
    ? [{ name: `thread verify <${longSteps}-step>`, args: (t) => ["thread", "verify", t.long] }]
    : []),
  { name: "thread verify --all", args: () => ["thread", "verify", "--all"], walk: true },
  { name: "cas verify", args: () => ["cas", "verify"], walk: true },
  { name: "usage", args: () => ["usage"], walk: true },
];
/** Measured for memory only (`--memory`): a dry run marks every node like a real one. */
const memoryOnly = [{ name: "cas gc (dry run)", args: () => ["cas", "gc"], walk: true }];

const baseEnv = {};
for (const [name, value] of Object.entries(process.env))
  if (!name.startsWith("UWF_") && name !== "NODE_EXTRA_CA_CERTS") baseEnv[name] = value;

const work = mkdtempSync(join(tmpdir(), "uwf-bench-scale-"));
const statFile = join(work, "perf-stat.txt");
const median = (samples) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];

/** CPU ms (perf's task-clock) of one `node args`; it must exit 0. */
function cpuMs(args, env) {
  // stdout is not kept: `thread verify --all` prints a line a thread, megabytes at 100k.
  const result = spawnSync(
    "perf",
    ["stat", "-x", ",", "-e", "task-clock", "-o", statFile, node, ...args],
    { env, cwd: work, stdio: ["ignore", "ignore", "pipe"], timeout: 4 * 3600_000 },
  );
  if (result.status !== 0)
    throw new Error(
      `node ${args.join(" ")} failed (${result.status ?? result.signal}):\n${result.stderr}`,
    );
  const line = readFileSync(statFile, "utf8")
    .split("\n")
    .find((row) => row.includes("task-clock"));
  return Number(line.split(",")[0]);
}

/** Median CPU ms of `runs` runs after one warm-up. */
function medianCpuMs(args, env) {
  const samples = [];
  for (let i = 0; i <= runs; i++) {
    const ms = cpuMs(args, env);
    if (i > 0) samples.push(ms);
  }
  return median(samples);
}

/** Peak RSS in KiB of one `node args` (GNU time's %M); it must exit 0. */
function peakRssKiB(args, env) {
  const timeFile = join(work, "time.txt");
  const result = spawnSync("/usr/bin/time", ["-f", "%M", "-o", timeFile, node, ...args], {
    env,
    cwd: work,
    stdio: ["ignore", "ignore", "pipe"],
    timeout: 4 * 3600_000,
  });
  if (result.status !== 0)
    throw new Error(
      `node ${args.join(" ")} failed (${result.status ?? result.signal}):\n${result.stderr}`,
    );
  return Number(readFileSync(timeFile, "utf8").trim().split("\n").pop());
}

function uwfSync(env, ...args) {
  const result = spawnSync(node, [uwfBin, ...args], { env, cwd: work, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`uwf ${args.join(" ")} failed:\n${result.stderr}`);
  return result.stdout.trim();
}

/** Steps per second with IN_FLIGHT execs at once, on a fresh store of its own. */
function measureThroughput(name, storeUrl) {
  const home = mkdtempSync(join(work, `${name}-throughput-`));
  const config = { store: storeUrl, host: "bench", agents: { relay: relayAgent(home) } };
  writeFileSync(join(home, "config.yaml"), JSON.stringify(config));
  return relayThroughput({
    env: { ...baseEnv, UWF_HOME: home, HOME: home },
    cwd: work,
    threads: throughputThreads,
    inFlight: IN_FLIGHT,
    runs: Math.min(runs, 3),
  });
}

/** Steps per second per backend, and each as a multiple of the filesystem's. */
function printThroughput(stepsPerSecond) {
  console.log(
    `\nthroughput: steps per second, ${IN_FLIGHT} execs in flight ` +
      `(${throughputThreads} three-step threads a run, median of ${Math.min(runs, 3)})`,
  );
  console.log(`${"backend".padEnd(34)} ${"steps/s".padStart(10)} ${"× fs".padStart(10)}`);
  for (const [name, perSecond] of Object.entries(stepsPerSecond)) {
    const fs = stepsPerSecond.fs;
    let times = fs ? (perSecond / fs).toFixed(2) : "";
    if (name === "postgres" && fs && perSecond < PG_THROUGHPUT * fs) times += "!";
    console.log(`${name.padEnd(34)} ${perSecond.toFixed(1).padStart(10)} ${times.padStart(10)}`);
  }
}

/** Grows one backend's store through `sizes` and measures every command at each size. */
async function measureBackend(name, storeUrl) {
  const home = mkdtempSync(join(work, `${name}-`));
  writeFileSync(join(home, "config.yaml"), JSON.stringify({ store: storeUrl, host: "bench" }));
  const env = { ...baseEnv, UWF_HOME: home, HOME: home };
  const hash = JSON.parse(
    uwfSync(env, "workflow", "add", join(root, "bench/loop.yaml"), "--format", "json"),
  ).hash;
  const backends = { postgres: () => import(`${root}packages/store-postgres/dist/index.js`) };
  const open = () => openStore({ home, url: storeUrl, host: "bench", backends });
  const targets = {};
  let store = await open();
  try {
    targets.shown = await buildLongThread(store, hash, 10, work);
    if (longSteps > 0) targets.long = await buildLongThread(store, hash, longSteps, work);
  } finally {
    await store.close();
  }
  const figures = [];
  let built = 0;
  for (const size of sizes) {
    const started = performance.now();
    store = await open();
    try {
      const options = { suspendedEvery: SUSPENDED_EVERY };
      await buildManyShortThreads(store, hash, size - built, stepsPerThread, work, options);
    } finally {
      await store.close();
    }
    built = size;
    const buildS = (performance.now() - started) / 1000;
    console.error(`${name}: ${size} threads built in ${buildS.toFixed(0)} s; measuring`);
    const ms = {};
    for (const command of commands) {
      if (command.walk && size > walksUpTo) continue;
      ms[command.name] = medianCpuMs([uwfBin, ...command.args(targets)], env);
      console.error(`${name}: ${size} threads: ${command.name}: ${ms[command.name].toFixed(0)} ms`);
    }
    const memory = {};
    if (flags.memory && size <= walksUpTo) {
      memory.nodes = JSON.parse(uwfSync(env, "cas", "verify", "--format", "json")).checked;
      for (const command of [...commands, ...memoryOnly].filter((c) => c.walk)) {
        memory[command.name] = peakRssKiB([uwfBin, ...command.args(targets)], env);
        const mib = (memory[command.name] / 1024).toFixed(0);
        console.error(`${name}: ${size} threads: ${command.name}: ${mib} MiB peak RSS`);
      }
    }
    figures.push({ size, ms, memory });
  }
  return figures;
}

const exponent = (a, b, command) =>
  Math.log(b.ms[command] / a.ms[command]) / Math.log(b.size / a.size);

/** One table: a ratio to N0 per size, then the exponent between consecutive sizes. */
function printTable(name, figures, n0, fsFigures) {
  const label = (n) => (n >= 1000 ? `${n / 1000}k` : `${n}`);
  const head = [
    "command".padEnd(34),
    ...figures.map((f) => `${label(f.size)} ×N0`.padStart(10)),
    ...figures.slice(1).map((f, i) => `${label(figures[i].size)}→${label(f.size)}`.padStart(10)),
  ];
  console.log(`\n${name}`);
  console.log(head.join(" "));
  for (const command of commands) {
    const cells = [command.name.padEnd(34)];
    for (const [i, f] of figures.entries()) {
      if (f.ms[command.name] === undefined) {
        cells.push("-".padStart(10));
        continue;
      }
      let cell = (f.ms[command.name] / n0).toFixed(1);
      const fsMs = fsFigures?.[i]?.ms[command.name];
      // Whole-store walks on PostgreSQL: within 2× the filesystem.
      if (command.walk && fsMs && f.ms[command.name] > PG_OVER_FS * fsMs) cell += "!";
      cells.push(cell.padStart(10));
    }
    for (let i = 1; i < figures.length; i++) {
      const e = exponent(figures[i - 1], figures[i], command.name);
      if (Number.isNaN(e)) {
        cells.push("-".padStart(10));
        continue;
      }
      const miss = command.flat && figures[i - 1].size >= 10_000 && e > FLAT;
      cells.push(`${e.toFixed(2)}${miss ? "!" : ""}`.padStart(10));
    }
    console.log(cells.join(" "));
  }
}

/** Peak RSS per walk at each size, and the bytes it grows per node between sizes. */
function printMemory(name, figures) {
  const measured = figures.filter((f) => f.memory.nodes !== undefined);
  if (measured.length === 0) return;
  const label = ({ memory: { nodes } }) =>
    nodes >= 1e6 ? `${(nodes / 1e6).toFixed(2)}M` : `${(nodes / 1e3).toFixed(0)}k`;
  console.log(`\n${name}: peak RSS (MiB) by store size in nodes; bytes per node between sizes`);
  const head = [
    "command".padEnd(34),
    ...measured.map((f) => label(f).padStart(10)),
    ...measured.slice(1).map((f, i) => `${label(measured[i])}→${label(f)}`.padStart(14)),
  ];
  console.log(head.join(" "));
  for (const command of [...commands, ...memoryOnly].filter((c) => c.walk)) {
    const cells = [command.name.padEnd(34)];
    for (const f of measured) cells.push((f.memory[command.name] / 1024).toFixed(0).padStart(10));
    for (let i = 1; i < measured.length; i++) {
      const [a, b] = [measured[i - 1].memory, measured[i].memory];
      const perNode = ((b[command.name] - a[command.name]) * 1024) / (b.nodes - a.nodes);
      cells.push(`${perNode.toFixed(1)}${perNode > BYTES_PER_NODE ? "!" : ""}`.padStart(14));
    }
    console.log(cells.join(" "));
  }
}

let server = null;
try {
  const backendNames = flags.backends.split(",");
  const n0 = medianCpuMs(["-e", "0"], baseEnv);
  const [load1] = readFileSync("/proc/loadavg", "utf8").split(" ");
  console.log(
    `N0 = node -e 0: ${n0.toFixed(1)} ms CPU (task-clock); medians of ${runs} runs; ` +
      `load average ${load1} at start; ${stepsPerThread} steps a thread` +
      (longSteps > 0 ? `, one ${longSteps}-step thread` : ""),
  );
  if (backendNames.includes("postgres")) {
    const { startPostgres } = await import(`${root}packages/test-utils/dist/index.js`);
    server = await startPostgres();
  }
  const newStore = (name) => (name === "postgres" ? server.createDatabase() : "fs");
  const stepsPerSecond = {};
  if (throughputThreads > 0) {
    for (const name of backendNames) {
      stepsPerSecond[name] = await measureThroughput(name, await newStore(name));
      console.error(`${name}: ${stepsPerSecond[name].toFixed(1)} steps/s, ${IN_FLIGHT} in flight`);
    }
  }
  const results = {};
  if (sizes.length > 0) {
    for (const name of backendNames)
      results[name] = await measureBackend(name, await newStore(name));
    for (const name of backendNames)
      printTable(name, results[name], n0, name === "postgres" ? results.fs : undefined);
    for (const name of backendNames) printMemory(name, results[name]);
  }
  if (throughputThreads > 0) printThroughput(stepsPerSecond);
  console.log(
    `\n! marks a miss: exponent > ${FLAT} from 10k up for a command that must stay flat; ` +
      `a whole-store walk on PostgreSQL over ${PG_OVER_FS}× the filesystem's; ` +
      `PostgreSQL's throughput under ${PG_THROUGHPUT}× the filesystem's; ` +
      `peak RSS growing over ${BYTES_PER_NODE} bytes a node. ` +
      `Load average ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]} at the end.`,
  );
} finally {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
}
