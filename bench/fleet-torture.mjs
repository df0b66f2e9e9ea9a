#!/usr/bin/env node
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  envWithoutUwf,
  pool,
  printViolations,
  processGroups,
  runTorture,
  seededRandom,
  snapshotBinary,
} from "./torture-kit.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const { startPostgres } = await import(`${root}packages/test-utils/dist/index.js`);
const WORKFLOW = join(root, "bench/hosts-relay.yaml");
const ROLES = ["planner", "worker", "reviewer"];
const STATUSES = ["planned", "done", "approved"];

const { values } = parseArgs({
  options: {
    threads: { type: "string", default: "300" },
    homes: { type: "string", default: "3" },
    "workers-per-home": { type: "string", default: "4" },
    backend: { type: "string", default: "postgres" },
    "kill-every-ms": { type: "string", default: "1500" },
    "lease-seconds": { type: "string", default: "2" },
    "step-delay-ms": { type: "string", default: "150" },
    "poll-ms": { type: "string", default: "200" },
    seed: { type: "string", default: String(Date.now() % 100_000) },
    "deadline-s": { type: "string", default: "1800" },
    verbose: { type: "boolean", default: false },
  },
});
const threadCount = Number(values.threads);
const homeCount = Number(values.homes);
const workersPerHome = Number(values["workers-per-home"]);
const backend = values.backend;
if (backend !== "postgres" && backend !== "fs") throw new Error("--backend is postgres or fs");
const killEveryMs = Number(values["kill-every-ms"]);
const leaseSeconds = Number(values["lease-seconds"]);
const stepDelayMs = Number(values["step-delay-ms"]);
const pollMs = Number(values["poll-ms"]);
const deadlineMs = Number(values["deadline-s"]) * 1000;
const seedUsed = Number(values.seed);

const random = seededRandom(seedUsed);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const work = realpathSync(mkdtempSync(join(tmpdir(), "uwf-fleet-torture-")));
const startedAll = Date.now();

// ─── Processes: every child is tracked and killed on the way out ─────────────────────────────

let stopping = false;

const { start: startProcess, killAll } = processGroups(work);
/** Start `node args` in its own group; `done` resolves with its exit code, signal and output. */
const start = (args, env) => startProcess(process.execPath, args, env);

const snapshot = (pkg, bin) => snapshotBinary(work, pkg, bin);

const baseEnv = envWithoutUwf();

/** A machine: its own UWF_HOME and config.yaml naming it, all sharing `store`. */
function makeHome(name, store, mockBin, scenario) {
  const home = join(work, name);
  mkdirSync(home);
  const config = {
    store,
    host: name,
    leaseSeconds,
    agents: { mock: { command: process.execPath, args: [mockBin, "--scenario", scenario] } },
    defaultAgent: "mock",
  };
  writeFileSync(join(home, "config.yaml"), JSON.stringify(config, null, 2), { mode: 0o600 });
  return { name, home, env: { ...baseEnv, UWF_HOME: home, HOME: home } };
}

let uwfBin;
const uwf = (home, args) => start([uwfBin, ...args], home.env).done;
async function uwfJson(home, args) {
  const result = await uwf(home, [...args, "--format", "json"]);
  if (result.code !== 0)
    throw new Error(`${home.name}: uwf ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** Every event of the process logs under `homes`, by name. */
function countEvents(homes) {
  const counts = new Map();
  for (const home of new Set(homes.map((h) => h.home))) {
    const dir = join(home, "logs");
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir)) {
      for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
        const match = /"event":"([^"]+)"/.exec(line);
        if (match) counts.set(match[1], (counts.get(match[1]) ?? 0) + 1);
      }
    }
  }
  return counts;
}

// ─── The run ────────────────────────────────────────────────────────────────────────────────

const stats = { workersStarted: 0, kills: 0, runs: 0, workerExits: new Map() };
const violations = [];
let server = null;

async function main() {
  uwfBin = snapshot("cli", "uwf.cjs");
  const mockBin = snapshot("agent-mock", "uwf-mock.cjs");
  const scenario = join(work, "scenario.json");
  writeFileSync(
    scenario,
    JSON.stringify({
      steps: ROLES.map((role, i) => ({
        role,
        output: { $status: STATUSES[i], step: i + 1 },
        ...(role === "worker" && stepDelayMs > 0 ? { delay_ms: stepDelayMs } : {}),
      })),
    }),
  );
  let store = "fs";
  if (backend === "postgres") {
    server = await startPostgres();
    store = await server.createDatabase();
  }
  const names = ["home-a", "home-b", "home-c", "home-d", "home-e", "home-f"];
  const homes =
    backend === "postgres"
      ? Array.from({ length: homeCount }, (_, i) =>
          makeHome(names[i] ?? `home-${i}`, store, mockBin, scenario),
        )
      : [makeHome("home-a", store, mockBin, scenario)];
  const workersTotal = homeCount * workersPerHome;
  const threadCwd = join(work, "cwd");
  mkdirSync(threadCwd);
  console.log(
    `fleet torture: backend ${backend}${server ? ` (PostgreSQL ${server.version})` : ""}, ` +
      `${threadCount} threads, ${backend === "fs" ? `1 home × ${workersTotal}` : `${homeCount} homes × ${workersPerHome}`} workers, ` +
      `a kill every ~${killEveryMs} ms, lease ${leaseSeconds} s, seed ${seedUsed}`,
  );

  await uwfJson(homes[0], ["workflow", "add", WORKFLOW]);
  const ids = [];
  await pool(
    [...Array(threadCount).keys()],
    8,
    () => stopping,
    async (i) => {
      const started = await uwfJson(homes[i % homes.length], [
        "thread",
        "start",
        "hosts-relay",
        "-p",
        `task ${i}`,
        "--cwd",
        threadCwd,
      ]);
      ids.push(started.thread);
    },
  );
  console.log(
    `started ${threadCount} threads in ${((Date.now() - startedAll) / 1000).toFixed(1)} s`,
  );

  // ─── Workers: slots that are started again whenever their worker dies ──────────────────
  const slots = Array.from({ length: workersTotal }, (_, i) => ({
    home: homes[i % homes.length],
    worker: null,
  }));
  const ended = [];
  function startWorker(slot) {
    stats.workersStarted++;
    const run = start(
      [
        uwfBin,
        "thread",
        "exec",
        "--next",
        "--wait",
        "-c",
        "20",
        "--poll",
        `${pollMs}ms`,
        "--format",
        "json",
      ],
      slot.home.env,
    );
    slot.worker = run;
    ended.push(
      run.done.then((result) => {
        stats.runs += result.stdout.split("\n").filter((line) => line.startsWith("{")).length;
        const how = result.signal ?? `exit ${result.code}`;
        stats.workerExits.set(how, (stats.workerExits.get(how) ?? 0) + 1);
        if (result.signal === null && result.code !== 0)
          violations.push(
            `a worker of ${slot.home.name} exited ${result.code}: ${result.stderr.trim().split("\n").at(-1)}`,
          );
        if (slot.worker === run && !draining && !stopping) startWorker(slot);
      }),
    );
  }
  let draining = false;
  const execStarted = Date.now();
  for (const slot of slots) startWorker(slot);

  // The killer: SIGKILL a random worker (the worker alone, as a crash would) now and then.
  const killer = (async () => {
    while (!draining && !stopping) {
      await sleep(Math.floor(random() * 2 * killEveryMs));
      if (draining || stopping) break;
      const slot = slots[Math.floor(random() * slots.length)];
      try {
        slot.worker.child.kill("SIGKILL");
        stats.kills++;
        if (values.verbose) console.log(`killed a worker of ${slot.home.name}`);
      } catch {
        // Already gone.
      }
    }
  })();

  // Done when every thread is completed (asked of the store through uwf, every 2 s).
  let lastReport = Date.now();
  for (;;) {
    await sleep(2000);
    if (stopping) return;
    const done = await uwfJson(homes[0], [
      "thread",
      "list",
      "--status",
      "completed",
      "--limit",
      "1",
      "--count",
    ]);
    if (Date.now() - lastReport > 30_000) {
      lastReport = Date.now();
      console.log(
        `  … ${done.total}/${threadCount} completed, ${stats.kills} kills (${Math.round((Date.now() - execStarted) / 1000)} s)`,
      );
    }
    if (done.total === threadCount) break;
  }
  const drainMs = Date.now() - execStarted;
  draining = true;
  await killer;
  // Stop the fleet as a supervisor does: SIGTERM; idle workers end with 0.
  for (const slot of slots) slot.worker.child.kill("SIGTERM");
  await Promise.all(ended);

  // ─── Checks, with uwf's own commands ───────────────────────────────────────────────────
  // A killed worker's lease on another home stays live to the others until it expires.
  if (backend === "postgres") await sleep(leaseSeconds * 1000 + 500);
  const checker = homes[0];
  const running = await uwfJson(checker, ["thread", "list", "--status", "running"]);
  if (running.total !== 0) violations.push(`${running.total} thread(s) still listed as running`);
  let stepsSeen = 0;
  const expected = ROLES.map((role, i) => `${role}:${STATUSES[i]}`).join(" → ");
  await pool(
    ids,
    6,
    () => stopping,
    async (id) => {
      const shown = await uwfJson(checker, ["thread", "show", id]);
      if (shown.status !== "completed") violations.push(`thread ${id} is ${shown.status}`);
      if (shown.lockHolder)
        violations.push(`thread ${id} has a live lease: pid ${shown.lockHolder.pid}`);
      const { steps } = await uwfJson(checker, ["step", "list", id]);
      stepsSeen += steps.length;
      const chain = steps.map((step) => `${step.role}:${step.status}`).join(" → ");
      if (chain !== expected) violations.push(`thread ${id} chain is ${chain || "(empty)"}`);
      if (new Set(steps.map((step) => step.hash)).size !== steps.length)
        violations.push(`thread ${id} repeats a step`);
      if (shown.steps !== steps.length)
        violations.push(
          `thread ${id} pointer counts ${shown.steps} steps, chain has ${steps.length}`,
        );
    },
  );
  const verifyAll = await uwf(checker, ["thread", "verify", "--all", "--format", "json"]);
  let verified = "?";
  try {
    const doc = JSON.parse(verifyAll.stdout);
    verified = `${doc.threads.filter((t) => t.ok).length}/${doc.threads.length} ok`;
  } catch {
    // Reported below by its exit code.
  }
  if (verifyAll.code !== 0) violations.push(`uwf thread verify --all exited ${verifyAll.code}`);
  const casVerify = await uwf(checker, ["cas", "verify"]);
  if (casVerify.code !== 0) violations.push(`uwf cas verify exited ${casVerify.code}`);

  const events = countEvents(homes);
  const seconds = drainMs / 1000;
  console.log(`\nresult (${backend}, seed ${seedUsed}):`);
  const row = (name, value) => console.log(`  ${name.padEnd(30)} ${value}`);
  row(
    "threads",
    `${threadCount} (${stepsSeen} steps in their chains, ${threadCount * ROLES.length} expected)`,
  );
  row("workers", `${workersTotal} at a time, ${stats.workersStarted} started`);
  row("workers killed (SIGKILL)", stats.kills);
  row("worker ends", [...stats.workerExits].map(([how, n]) => `${n}× ${how}`).join(", "));
  row("claims (exec.claim)", events.get("exec.claim") ?? 0);
  row("runs printed by workers", stats.runs);
  row("steps stored (step.done)", events.get("step.done") ?? 0);
  row("takeovers (thread.takeover)", events.get("thread.takeover") ?? 0);
  row("thread verify --all", verified);
  row("cas verify", casVerify.stdout.trim());
  row(
    "drain time",
    `${seconds.toFixed(1)} s (all: ${((Date.now() - startedAll) / 1000).toFixed(1)} s)`,
  );
  row("steps per second", (stepsSeen / seconds).toFixed(2));
  printViolations(violations, 30);
}

const stopEverything = () => {
  stopping = true;
  killAll();
};
await runTorture({
  name: "fleet torture",
  work,
  deadlineMs,
  violations,
  stop: stopEverything,
  main,
  cleanup: async () => {
    await server?.stop();
  },
});
