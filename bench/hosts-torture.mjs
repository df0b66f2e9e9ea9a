#!/usr/bin/env node
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
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
    seed: { type: "string", default: String(Date.now() % 100_000) },
    "kill-rate": { type: "string", default: "0.1" },
    backend: { type: "string", default: "postgres" },
    hosts: { type: "string", default: "3" },
    "execs-per-host": { type: "string", default: "4" },
    "lease-seconds": { type: "string", default: "2" },
    "step-delay-ms": { type: "string", default: "150" },
    "kill-max-ms": { type: "string", default: "auto" },
    "deadline-s": { type: "string", default: "1800" },
    verbose: { type: "boolean", default: false },
  },
});
const threadCount = Number(values.threads);
const killRate = Number(values["kill-rate"]);
const backend = values.backend;
if (backend !== "postgres" && backend !== "fs") throw new Error("--backend is postgres or fs");
const execsPerHost = Number(values["execs-per-host"]);
// The filesystem is one machine: its worker loops share one home (and compete all the same).
const hostCount = Number(values.hosts);
const leaseSeconds = Number(values["lease-seconds"]);
const stepDelayMs = Number(values["step-delay-ms"]);
// By default kills land anywhere in a typical exec: 1.2 × the median of the uncut ones so far.
const fixedKillMaxMs = values["kill-max-ms"] === "auto" ? null : Number(values["kill-max-ms"]);
const execDurations = [];
function killMaxMs() {
  if (fixedKillMaxMs !== null) return fixedKillMaxMs;
  if (execDurations.length < 5) return 3000;
  const sorted = [...execDurations].sort((a, b) => a - b);
  return 1.2 * sorted[Math.floor(sorted.length / 2)];
}
const deadlineMs = Number(values["deadline-s"]) * 1000;
const seedUsed = Number(values.seed);

const random = seededRandom(seedUsed);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const work = realpathSync(mkdtempSync(join(tmpdir(), "uwf-hosts-torture-")));
const startedAll = Date.now();

// ─── Processes: every child is tracked and killed on the way out ─────────────────────────────

let stopping = false;

const { start, killAll } = processGroups(work);

const snapshot = (pkg, bin) => snapshotBinary(work, pkg, bin);

// ─── Hosts ──────────────────────────────────────────────────────────────────────────────────

const baseEnv = envWithoutUwf();

/** A machine: its own UWF_HOME and config.yaml naming it, all sharing `store`. */
function makeHost(name, store, mockBin, scenario) {
  const home = join(work, name);
  mkdirSync(home);
  const config = {
    store,
    host: name,
    leaseSeconds,
    agents: {
      mock: { command: process.execPath, args: [mockBin, "--scenario", scenario] },
    },
    defaultAgent: "mock",
  };
  writeFileSync(join(home, "config.yaml"), JSON.stringify(config, null, 2), { mode: 0o600 });
  return { name, home, env: { ...baseEnv, UWF_HOME: home, HOME: home }, inFlight: new Set() };
}

let uwfBin;
async function uwf(host, args) {
  return await start(process.execPath, [uwfBin, ...args], host.env).done;
}
async function uwfJson(host, args) {
  const result = await uwf(host, [...args, "--format", "json"]);
  if (result.code !== 0)
    throw new Error(`${host.name}: uwf ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

// ─── The run ────────────────────────────────────────────────────────────────────────────────

const stats = {
  execs: 0,
  completedByExec: 0,
  kills: 0,
  killsLeavingLease: 0,
  takeoversSameHost: 0,
  takeoversOtherHost: 0,
  busyRetries: 0,
  busyOnDeadHolder: 0,
  otherExits: new Map(),
};
const violations = [];
let server = null;
/** A direct connection, only to tell whether a killed exec left its lease (the statistics). */
let db = null;

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
        body: `${role} wrote step ${i + 1}`,
        ...(role === "worker" && stepDelayMs > 0 ? { delay_ms: stepDelayMs } : {}),
      })),
    }),
  );

  let store = "fs";
  if (backend === "postgres") {
    server = await startPostgres();
    store = await server.createDatabase();
    const pg = createRequire(join(root, "packages/store-postgres/package.json"))("pg");
    db = new pg.Client({ connectionString: store });
    await db.connect();
  }
  const names = ["host-a", "host-b", "host-c", "host-d", "host-e", "host-f"];
  const hosts = Array.from({ length: hostCount }, (_, i) =>
    backend === "fs" && i > 0
      ? { name: `loop-${i + 1}`, home: null, env: null, inFlight: new Set() }
      : makeHost(names[i] ?? `host-${i}`, store, mockBin, scenario),
  );
  if (backend === "fs") {
    hosts[0].name = "loop-1";
    for (const loop of hosts.slice(1))
      Object.assign(loop, { home: hosts[0].home, env: hosts[0].env });
  }
  // A machine that runs nothing: it judges every exec's lease by expiry alone.
  const observer = backend === "postgres" ? makeHost("observer", store, mockBin, scenario) : null;
  const threadCwd = join(work, "cwd");
  mkdirSync(threadCwd);

  console.log(
    `hosts torture: backend ${backend}${server ? ` (PostgreSQL ${server.version} on 127.0.0.1:${server.port})` : ""}, ` +
      `${threadCount} threads, ${hostCount} ${backend === "fs" ? "worker loops on one home" : "hosts"} × ${execsPerHost} execs, kill rate ${killRate}, ` +
      `lease ${leaseSeconds} s, seed ${seedUsed}`,
  );

  await uwfJson(hosts[0], ["workflow", "add", WORKFLOW]);
  const ids = new Array(threadCount);
  await pool(
    [...ids.keys()],
    8,
    () => stopping,
    async (i) => {
      const host = hosts[i % hosts.length];
      const started = await uwfJson(host, [
        "thread",
        "start",
        "hosts-relay",
        "-p",
        `task ${i}`,
        "--cwd",
        threadCwd,
      ]);
      ids[i] = started.thread;
    },
  );
  console.log(
    `started ${threadCount} threads in ${Math.round((Date.now() - startedAll) / 1000)} s`,
  );

  // Shared work list: threads not known to be completed, oldest first. Hosts pick among the
  // first few, so they compete for the same threads (a busy one exits 5 and is retried).
  const pending = [...ids];
  /** Threads whose killed exec left its lease behind: thread → the killed holder's host. */
  const staleHolder = new Map();
  /** A thread another host found busy is not retried by that host for a moment. */
  const backoff = new Map();
  const window = hostCount * execsPerHost * 2;

  function pick(host) {
    const now = Date.now();
    const candidates = pending
      .slice(0, window + host.inFlight.size)
      .filter((id) => !host.inFlight.has(id) && (backoff.get(`${host.name} ${id}`) ?? 0) <= now);
    if (candidates.length === 0) return null;
    return candidates[Math.floor(random() * candidates.length)];
  }

  const sameMachine = (name, host) => backend === "fs" || name === host.name;

  function finish(id) {
    const at = pending.indexOf(id);
    if (at >= 0) pending.splice(at, 1);
  }

  async function leaseLeftBy(id, pid) {
    if (backend === "fs") {
      try {
        const lock = JSON.parse(readFileSync(join(hosts[0].home, "locks", `${id}.lock`), "utf8"));
        return lock.holder?.pid === pid;
      } catch {
        return false;
      }
    }
    // The row stays until someone takes the lease over, expired or not.
    const { rows } = await db.query("select pid from uwf_leases where thread = $1", [id]);
    return rows[0]?.pid === pid;
  }

  async function runExec(host, id) {
    stats.execs++;
    const execStart = Date.now();
    const run = start(
      process.execPath,
      [uwfBin, "thread", "exec", id, "-c", "20", "--agent", "mock", "--format", "json"],
      host.env,
    );
    let killed = false;
    let timer = null;
    if (random() < killRate) {
      timer = setTimeout(
        () => {
          killed = true;
          // The exec alone, as a crash would: its adapter sees its parent go and exits.
          run.child.kill("SIGKILL");
        },
        Math.floor(random() * killMaxMs()),
      );
    }
    const result = await run.done;
    if (timer) clearTimeout(timer);
    if (!killed && result.code === 0) execDurations.push(Date.now() - execStart);
    const hadStale = staleHolder.get(id);
    if (result.signal === "SIGKILL" && killed) {
      stats.kills++;
      if (await leaseLeftBy(id, run.child.pid)) {
        stats.killsLeavingLease++;
        staleHolder.set(id, host.name);
      }
      // Straight back to the front: the hosts race to take it over.
      finish(id);
      pending.unshift(id);
      if (values.verbose) console.log(`${host.name}: killed exec of ${id}`);
      return;
    }
    if (result.code === 5) {
      stats.busyRetries++;
      if (hadStale !== undefined && !sameMachine(hadStale, host)) stats.busyOnDeadHolder++;
      backoff.set(`${host.name} ${id}`, Date.now() + 100 + random() * 300);
      return;
    }
    if (hadStale !== undefined) {
      if (sameMachine(hadStale, host)) stats.takeoversSameHost++;
      else stats.takeoversOtherHost++;
      staleHolder.delete(id);
    }
    if (result.code === 0) {
      const doc = JSON.parse(result.stdout);
      if (doc.status === "completed") {
        stats.completedByExec++;
        finish(id);
      } else if (doc.status === "suspended") {
        violations.push(`thread ${id} suspended on ${host.name}: ${doc.message}`);
        finish(id);
      }
      return;
    }
    // Any other exit is not a violation by itself (the final checks decide), but is reported.
    let code = `exit ${result.code}${result.signal ? ` ${result.signal}` : ""}`;
    try {
      code += ` ${JSON.parse(result.stderr).error.code}`;
    } catch {
      // Not a JSON error document.
    }
    stats.otherExits.set(code, (stats.otherExits.get(code) ?? 0) + 1);
    if (values.verbose) console.log(`${host.name}: ${id} ${code}: ${result.stderr.trim()}`);
    if (result.code === 4) finish(id); // suspended: the final check reports it
  }

  async function hostLoop(host) {
    const slots = Array.from({ length: execsPerHost }, async () => {
      while (!stopping && pending.length > 0) {
        const id = pick(host);
        if (id === null) {
          await sleep(20);
          continue;
        }
        host.inFlight.add(id);
        try {
          await runExec(host, id);
        } finally {
          host.inFlight.delete(id);
        }
      }
    });
    await Promise.all(slots);
  }

  const execStarted = Date.now();
  let lastReport = execStarted;
  const progress = setInterval(() => {
    if (Date.now() - lastReport < 30_000) return;
    lastReport = Date.now();
    console.log(
      `  … ${threadCount - pending.length}/${threadCount} done, ${stats.execs} execs, ${stats.kills} kills (${Math.round((Date.now() - execStarted) / 1000)} s)`,
    );
  }, 1000);
  try {
    await Promise.all(hosts.map(hostLoop));
  } finally {
    clearInterval(progress);
  }
  const execMs = Date.now() - execStarted;
  if (stopping) return;

  // ─── Checks, with uwf's own commands ───────────────────────────────────────────────────
  // A killed holder on another host stays "live" to the others until its lease expires.
  if (backend === "postgres") await sleep(leaseSeconds * 1000 + 500);
  const checker = observer ?? hosts[0];
  const list = await uwfJson(checker, ["thread", "list", "--status", "all", "--limit", "100000"]);
  if (list.total !== threadCount)
    violations.push(`thread list counts ${list.total} threads, not ${threadCount}`);
  const running = await uwfJson(checker, ["thread", "list", "--status", "running"]);
  if (running.total !== 0) violations.push(`${running.total} thread(s) still listed as running`);
  let stepsSeen = 0;
  await pool(
    ids,
    6,
    () => stopping,
    async (id) => {
      const shown = await uwfJson(checker, ["thread", "show", id]);
      if (shown.status !== "completed") violations.push(`thread ${id} is ${shown.status}`);
      if (shown.lockHolder)
        violations.push(`thread ${id} has a live lease: pid ${shown.lockHolder.pid}`);
      let steps;
      try {
        steps = (await uwfJson(checker, ["step", "list", id])).steps;
      } catch (error) {
        violations.push(`thread ${id}: ${error.message.trim()}`);
        return;
      }
      stepsSeen += steps.length;
      const roles = steps.map((step) => `${step.role}:${step.status}`).join(" → ");
      const expected = ROLES.map((role, i) => `${role}:${STATUSES[i]}`).join(" → ");
      if (roles !== expected) violations.push(`thread ${id} chain is ${roles || "(empty)"}`);
      if (new Set(steps.map((step) => step.hash)).size !== steps.length)
        violations.push(`thread ${id} repeats a step`);
      if (shown.steps !== steps.length)
        violations.push(
          `thread ${id} pointer counts ${shown.steps} steps, chain has ${steps.length}`,
        );
    },
  );
  const verify = await uwf(checker, ["cas", "verify"]);
  if (verify.code !== 0)
    violations.push(`uwf cas verify exited ${verify.code}: ${verify.stdout}${verify.stderr}`);

  const seconds = execMs / 1000;
  console.log(`\nresult (${backend}, seed ${seedUsed}):`);
  const row = (name, value) => console.log(`  ${name.padEnd(34)} ${value}`);
  row("threads", `${threadCount} (${stepsSeen} steps in their chains)`);
  row("execs started", stats.execs);
  row("execs killed (SIGKILL)", `${stats.kills} (${stats.killsLeavingLease} left a lease behind)`);
  row(
    "takeovers of a killed holder",
    `${stats.takeoversSameHost + stats.takeoversOtherHost} (${stats.takeoversSameHost} same host at once, ${stats.takeoversOtherHost} other host after expiry)`,
  );
  row(
    "busy retries (exit 5)",
    `${stats.busyRetries} (${stats.busyOnDeadHolder} on a killed holder's unexpired lease)`,
  );
  row(
    "other exits",
    stats.otherExits.size === 0
      ? "none"
      : [...stats.otherExits].map(([code, n]) => `${n}× ${code}`).join(", "),
  );
  row("cas verify", verify.stdout.trim());
  row(
    "wall time (execs)",
    `${seconds.toFixed(1)} s (all: ${((Date.now() - startedAll) / 1000).toFixed(1)} s)`,
  );
  row("steps per second", (stepsSeen / seconds).toFixed(2));
  printViolations(violations, 34);
}

const stopEverything = () => {
  stopping = true;
  killAll();
};
await runTorture({
  name: "hosts torture",
  work,
  deadlineMs,
  violations,
  stop: stopEverything,
  main,
  cleanup: async () => {
    await db?.end().catch(() => {});
    await server?.stop();
  },
});
