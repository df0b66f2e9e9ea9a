#!/usr/bin/env node
// Torture test for crash safety (DESIGN §1, §7): SIGKILL `uwf thread exec` at a random moment
// of a two-step run, again and again, and check after every kill that
//   - the thread is never reported `running` once its holder is dead,
//   - the next exec continues on its own (exit 0), taking the stale lock over,
//   - the adapter the killed exec left running is gone after that takeover,
//   - no lock is left behind, and
//   - the chain is exactly writer → reviewer: no step lost, none duplicated, every link right.
//
//   node bench/torture.mjs [--runs 100] [--seed 42] [--delay-ms 1000] [--verbose]
//
// The writer sleeps --delay-ms, so an adapter orphaned by the kill is usually still running
// when the next exec takes over: its death then proves the takeover ended it. Needs
// `pnpm build`. Not part of `pnpm test`: it takes a few minutes.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { envWithoutUwf, seededRandom, snapshotBinary } from "./torture-kit.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const { isProcessGone, sleep } = await import(`${root}packages/test-utils/dist/index.js`);
const RELAY = join(root, "packages/cli/e2e/fixtures/robustness/relay.yaml");

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "100" },
    seed: { type: "string", default: String(Date.now() % 100_000) },
    "delay-ms": { type: "string", default: "1000" },
    verbose: { type: "boolean", default: false },
  },
});
const runs = Number(values.runs);
const writerDelayMs = Number(values["delay-ms"]);

const random = seededRandom(Number(values.seed));

const home = realpathSync(mkdtempSync(join(tmpdir(), "uwf-torture-")));

const UWF_BIN = snapshotBinary(home, "cli", "uwf.cjs");
const MOCK_BIN = snapshotBinary(home, "agent-mock", "uwf-mock.cjs");
const env = envWithoutUwf();
// The takeover must end orphaned adapters itself, so the adapters' own parent watch is off.
Object.assign(env, { UWF_HOME: home, HOME: home, UWF_ADAPTER_WATCH_PARENT: "0" });

function scenario(name, delayMs) {
  const writer = { role: "writer", output: { $status: "written", text: "hello" } };
  if (delayMs) writer.delay_ms = delayMs;
  const path = join(home, name);
  writeFileSync(
    path,
    JSON.stringify({ steps: [writer, { role: "reviewer", output: { $status: "approved" } }] }),
  );
  return path;
}
writeFileSync(
  join(home, "config.yaml"),
  JSON.stringify({
    agents: {
      slow: {
        command: process.execPath,
        args: [MOCK_BIN, "--scenario", scenario("slow.json", writerDelayMs)],
      },
      fast: { command: process.execPath, args: [MOCK_BIN, "--scenario", scenario("fast.json", 0)] },
    },
  }),
);

/** Start uwf; `done` resolves with its exit code and output. */
function startUwf(args) {
  const child = spawn(process.execPath, [UWF_BIN, ...args], {
    cwd: home,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk) => {
    stderr += chunk;
  });
  const done = new Promise((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

async function uwf(args) {
  return await startUwf(args).done;
}

async function uwfJson(args) {
  const result = await uwf([...args, "--format", "json"]);
  if (result.code !== 0)
    throw new Error(`uwf ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
}

const lockOf = (thread) => readJson(join(home, "locks", `${thread}.lock`));
const pointerOf = (thread) => readJson(join(home, "threads", `${thread}.json`));
const casNode = (hash) => readJson(join(home, "cas", hash.slice(0, 2), `${hash}.json`));

/** Where the kill landed, read from what the killed exec left behind. */
function phaseOf(lock, pointer) {
  if (!lock) {
    if (pointer.status === "completed") return "after it finished";
    return pointer.steps === 0
      ? "before it took the lock"
      : `after step ${pointer.steps}, unlocked`;
  }
  // No adapter recorded: before the first spawn, or between an adapter's exit and the head move.
  if (!lock.child) return `holding the lock after ${pointer.steps} step(s), no adapter recorded`;
  const step = pointer.steps + 1;
  return isProcessGone(lock.child.pid)
    ? `adapter of step ${step} had exited`
    : `adapter of step ${step} running`;
}

/** Walk the chain from the head: roles oldest first; throws on a broken link. */
function chainRoles(pointer) {
  const roles = [];
  let hash = pointer.head === pointer.start ? null : pointer.head;
  while (hash !== null) {
    const node = casNode(hash);
    if (!node) throw new Error(`step ${hash} is not in the CAS`);
    if (node.payload.start !== pointer.start)
      throw new Error(`step ${hash} belongs to another thread`);
    roles.unshift(node.payload.role);
    hash = node.payload.prev;
  }
  return roles;
}

async function startThread() {
  return (await uwfJson(["thread", "start", RELAY, "-p", "torture"])).thread;
}

/** One full run, polling the pointer to learn when the first step lands. */
async function timeOneRun() {
  const thread = await startThread();
  const started = Date.now();
  const run = startUwf(["thread", "exec", thread, "-c", "2", "--agent", "slow"]);
  let firstStepAt = null;
  let finished = false;
  run.done.then(() => {
    finished = true;
  });
  while (!finished) {
    if (firstStepAt === null && pointerOf(thread)?.steps === 1) firstStepAt = Date.now() - started;
    await sleep(5);
  }
  const result = await run.done;
  if (result.code !== 0)
    throw new Error(`calibration run failed: ${result.stdout}${result.stderr}`);
  return { totalMs: Date.now() - started, firstStepMs: firstStepAt ?? Date.now() - started };
}

/** The fastest of a few runs: the first ones pay for cold caches. */
async function calibrate() {
  const timings = [];
  for (let i = 0; i < 4; i++) timings.push(await timeOneRun());
  timings.sort((a, b) => a.totalMs - b.totalMs);
  return timings[0];
}

async function tortureOnce(killAtMs) {
  const problems = [];
  const thread = await startThread();
  const run = startUwf(["thread", "exec", thread, "-c", "2", "--agent", "slow"]);
  await sleep(killAtMs);
  run.child.kill("SIGKILL");
  await run.done;

  const lock = lockOf(thread);
  const phase = phaseOf(lock, pointerOf(thread));
  const orphan = lock?.child?.pid ?? null;
  const shown = await uwfJson(["thread", "show", thread]);
  if (shown.status === "running") problems.push("thread reported running after its holder died");
  if (shown.lockHolder)
    problems.push(`thread show names a live lock holder: ${JSON.stringify(shown.lockHolder)}`);

  const next = await uwf(["thread", "exec", thread, "-c", "5", "--agent", "fast"]);
  if (next.code !== 0)
    problems.push(`next exec exited ${next.code}: ${(next.stdout + next.stderr).trim()}`);
  if (orphan !== null && !isProcessGone(orphan)) {
    problems.push(`orphaned adapter ${orphan} still runs after the takeover`);
    try {
      process.kill(-lock.child.pgid, "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
  if (lockOf(thread)) problems.push("a lock was left behind");
  const pointer = pointerOf(thread);
  if (pointer.status !== "completed") problems.push(`thread is ${pointer.status}, not completed`);
  try {
    const roles = chainRoles(pointer);
    if (roles.join(",") !== "writer,reviewer") problems.push(`chain is [${roles.join(", ")}]`);
    if (pointer.steps !== roles.length)
      problems.push(`pointer counts ${pointer.steps} steps, chain has ${roles.length}`);
  } catch (error) {
    problems.push(`chain: ${error.message}`);
  }
  return { thread, phase, problems };
}

const startedAll = Date.now();
const seedUsed = Number(values.seed);
try {
  const { totalMs, firstStepMs } = await calibrate();
  console.log(
    `calibration: a full two-step exec takes ${totalMs} ms, the first step lands at ${firstStepMs} ms (seed ${seedUsed})`,
  );
  let ok = 0;
  let failed = 0;
  const phases = new Map();
  for (let i = 1; i <= runs; i++) {
    // Two runs in three kill anywhere in the exec; one aims at the instant the first step
    // lands (adapter done, head about to move), the hardest window to hit.
    const killAtMs =
      i % 3 === 0 ? Math.max(0, firstStepMs - 60 + random() * 120) : random() * totalMs * 1.1;
    const { thread, phase, problems } = await tortureOnce(Math.round(killAtMs));
    phases.set(phase, (phases.get(phase) ?? 0) + 1);
    if (values.verbose) console.log(`run ${i}: kill at ${Math.round(killAtMs)} ms, ${phase}`);
    if (problems.length === 0) {
      ok++;
    } else {
      failed++;
      console.log(
        `run ${i} FAILED (kill at ${Math.round(killAtMs)} ms, ${phase}, thread ${thread}):`,
      );
      for (const problem of problems) console.log(`  - ${problem}`);
    }
  }
  console.log("where the kills landed:");
  for (const [phase, count] of [...phases].sort((a, b) => b[1] - a[1]))
    console.log(`  ${count}× ${phase}`);
  console.log(
    `${runs} runs, ${ok} ok, ${failed} failed (${Math.round((Date.now() - startedAll) / 1000)} s)`,
  );
  process.exitCode = failed === 0 ? 0 : 1;
} finally {
  if (process.exitCode === 0) rmSync(home, { recursive: true, force: true });
  else console.log(`UWF_HOME kept for inspection: ${home}`);
}
