import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type PostgresServer,
  REPO_ROOT,
  runUwf,
  type StartedProcess,
  sleep,
  startPostgres,
  startUwf,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";

// The small version of `pnpm torture:fleet`: three homes sharing one PostgreSQL store run four
// `thread exec --next --wait` workers each, which drain a backlog while a random worker is
// SIGKILLed (and started again) every few steps. Every thread must complete with its exact
// chain, every step once. UWF_FLEET_TORTURE_THREADS sets the backlog (default 24; the bench
// runs 300).

const THREADS = Number(process.env.UWF_FLEET_TORTURE_THREADS ?? "24");
const HOMES = 3;
const WORKERS_PER_HOME = 4;
/** A worker is killed each time this many more steps have started. */
const KILL_EVERY_STEPS = 6;
const RELAY = join(REPO_ROOT, "bench/hosts-relay.yaml");
const CHAIN = ["planner:planned", "worker:done", "reviewer:approved"];

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const dirs: string[] = [];
const workers = new Set<StartedProcess>();
afterEach(() => {
  for (const worker of workers) {
    try {
      process.kill(-worker.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  workers.clear();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function home(url: string, host: string, scenario: string): string {
  const dir = mkdtempSync(join(tmpdir(), "uwf-fleet-e2e-"));
  dirs.push(dir);
  const mock = { command: process.execPath, args: [UWF_MOCK_BIN, "--scenario", scenario] };
  const config = { store: url, host, leaseSeconds: 2, agents: { mock }, defaultAgent: "mock" };
  writeFileSync(join(dir, "config.yaml"), JSON.stringify(config), { mode: 0o600 });
  return dir;
}

async function json<T>(dir: string, args: string[]): Promise<T> {
  const result = await runUwf([...args, "--format", "json"], { home: dir, cwd: dir });
  if (result.code !== 0)
    throw new Error(`uwf ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** The lines of the homes' process logs that record `event`. */
function logged(homes: string[], event: string): string[] {
  const lines: string[] = [];
  for (const dir of homes) {
    const logs = join(dir, "logs");
    if (!existsSync(logs)) continue;
    for (const file of readdirSync(logs)) {
      for (const line of readFileSync(join(logs, file), "utf8").split("\n")) {
        if (line.includes(`"event":"${event}"`)) lines.push(line);
      }
    }
  }
  return lines;
}

it(`${HOMES} homes × ${WORKERS_PER_HOME} workers drain ${THREADS} threads while workers are killed`, async () => {
  const url = await server.createDatabase();
  const scratch = mkdtempSync(join(tmpdir(), "uwf-fleet-e2e-"));
  dirs.push(scratch);
  const scenario = writeScenario(
    scratch,
    CHAIN.map((link, i) => {
      const [role, status] = link.split(":") as [string, string];
      return { role, output: { $status: status, step: i + 1 } };
    }),
  );
  const homes = ["home-a", "home-b", "home-c"].slice(0, HOMES).map((h) => home(url, h, scenario));
  await json(homes[0]!, ["workflow", "add", RELAY]);
  const threads: string[] = [];
  for (let i = 0; i < THREADS; i++) {
    const started = await json<{ thread: string }>(homes[i % HOMES]!, [
      "thread",
      "start",
      "hosts-relay",
      "-p",
      `task ${i}`,
    ]);
    threads.push(started.thread);
  }

  let draining = false;
  const slots = homes.flatMap((dir) => Array.from({ length: WORKERS_PER_HOME }, () => dir));
  const running: StartedProcess[] = [];
  const badEnds: string[] = [];
  const startWorker = (slot: number): void => {
    const worker = startUwf(
      ["thread", "exec", "--next", "--wait", "-c", "5", "--poll", "200ms", "--format", "json"],
      { home: slots[slot]!, cwd: slots[slot]!, timeoutMs: 280_000 },
    );
    workers.add(worker);
    running[slot] = worker;
    void worker.done.then((end) => {
      workers.delete(worker);
      if (end.signal === null && end.code !== 0) badEnds.push(`exit ${end.code}: ${end.stderr}`);
      if (!draining) startWorker(slot);
    });
  };
  for (const slot of slots.keys()) startWorker(slot);

  // Kill a worker each time KILL_EVERY_STEPS more steps have started, until all completed.
  let kills = 0;
  let killAt = KILL_EVERY_STEPS;
  for (;;) {
    const started = logged(homes, "step.start").length;
    if (started >= killAt) {
      killAt = started + KILL_EVERY_STEPS;
      running[kills % running.length]!.child.kill("SIGKILL");
      kills++;
    }
    const done = await json<{ total: number }>(homes[0]!, [
      "thread",
      "list",
      "--status",
      "completed",
      "--limit",
      "1",
      "--count",
    ]);
    if (done.total === THREADS) break;
    await sleep(100);
  }
  draining = true;
  // Told to stop once each has said it waits for work (a worker just started has not yet).
  for (;;) {
    const idle = new Set(logged(homes, "exec.idle").map((line) => JSON.parse(line).pid));
    if (running.every((worker) => idle.has(worker.pid))) break;
    await sleep(100);
  }
  const ends = await Promise.all(
    running.map((worker) => {
      worker.child.kill("SIGTERM");
      return worker.done;
    }),
  );
  // Idle when told to stop: every worker ends cleanly.
  expect(ends.map((end) => end.code)).toEqual(running.map(() => 0));
  expect(badEnds).toEqual([]);
  expect(kills).toBeGreaterThan(0);

  for (const thread of threads) {
    const steps = await json<{ steps: { role: string; status: string }[] }>(homes[1]!, [
      "step",
      "list",
      thread,
    ]);
    expect(steps.steps.map((step) => `${step.role}:${step.status}`)).toEqual(CHAIN);
  }
  const verify = await runUwf(["thread", "verify", "--all"], { home: homes[2]! });
  expect(verify.code, verify.stdout + verify.stderr).toBe(0);
}, 300_000);
