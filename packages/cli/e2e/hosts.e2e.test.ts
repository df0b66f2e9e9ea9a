import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type PostgresServer,
  runUwf,
  type StartedProcess,
  sleep,
  startPostgres,
  startUwf,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";

// Two machines sharing one PostgreSQL store, as two UWF_HOMEs naming themselves in
// config.yaml: an exec killed with SIGKILL on host A leaves its lease; host B, which cannot
// check A's processes, is refused while the lease lives and takes the thread over once it has
// expired. The small version of `pnpm torture:hosts`.

const RELAY = fileURLToPath(new URL("./fixtures/robustness/relay.yaml", import.meta.url));

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const dirs: string[] = [];
const spawned: ChildProcess[] = [];
afterEach(() => {
  for (const child of spawned.splice(0)) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "uwf-hosts-e2e-"));
  dirs.push(dir);
  return dir;
}

/** A machine: its own UWF_HOME whose config.yaml names it and points at the shared store. */
function machine(url: string, host: string, leaseSeconds: number, scenarios: string[]): string {
  const home = tempDir();
  const [gated, quick] = scenarios.map((scenario) => ({
    command: process.execPath,
    args: [UWF_MOCK_BIN, "--scenario", scenario],
  }));
  const config = { store: url, host, leaseSeconds, agents: { gated, quick } };
  writeFileSync(join(home, "config.yaml"), JSON.stringify(config), { mode: 0o600 });
  return home;
}

async function uwf(home: string, args: string[]): Promise<string> {
  const result = await runUwf(args, { home });
  if (result.code !== 0)
    throw new Error(`uwf ${args.join(" ")} exited ${result.code}:\n${result.stderr}`);
  return result.stdout.trim();
}

async function json<T>(home: string, args: string[]): Promise<T> {
  return JSON.parse(await uwf(home, [...args, "--format", "json"])) as T;
}

/** `uwf thread exec` in the background, so the test can kill it. */
function startExec(home: string, thread: string, agent: string): StartedProcess {
  const started = startUwf(["thread", "exec", thread, "-c", "5", "--agent", agent], {
    home,
    cwd: home,
    timeoutMs: 170_000,
  });
  spawned.push(started.child);
  return started;
}

interface Shown {
  status: string;
  steps: number;
  lockHolder: { pid: number } | null;
}

async function chain(home: string, thread: string): Promise<string[]> {
  const list = await json<{ steps: { role: string; status: string }[] }>(home, [
    "step",
    "list",
    thread,
  ]);
  return list.steps.map((step) => `${step.role}:${step.status}`);
}

/** Poll `probe` until it returns a value; fail (naming `what`) after a generous bound. */
async function until<T>(what: string, probe: () => Promise<T | null>): Promise<T> {
  for (let attempt = 0; attempt < 400; attempt++) {
    const value = await probe();
    if (value !== null) return value;
    await sleep(50);
  }
  throw new Error(`gave up waiting for ${what}`);
}

it("a lease left by an exec killed on host A is refused to host B until it expires, then taken over", async () => {
  const url = await server.createDatabase();
  const dir = tempDir();
  const gate = join(dir, "gate");
  const scenario = writeScenario(dir, [
    { role: "writer", wait_for: gate, output: { $status: "written", text: "hello" } },
    { role: "reviewer", output: { $status: "approved" } },
  ]);
  const quick = writeScenario(
    dir,
    [
      { role: "writer", output: { $status: "written", text: "hello" } },
      { role: "reviewer", output: { $status: "approved" } },
    ],
    "quick.yaml",
  );
  // A's leases last 20 s: B's first attempt right after the kill meets a live lease even on a
  // slow, loaded machine (a short lease there could expire before B's process has started).
  const hostA = machine(url, "host-a", 20, [scenario, quick]);
  const hostB = machine(url, "host-b", 2, [scenario, quick]);
  await uwf(hostA, ["workflow", "add", RELAY]);
  const threads: string[] = [];
  for (let i = 0; i < 3; i++) {
    threads.push(
      await uwf(i % 2 === 0 ? hostA : hostB, ["thread", "start", "relay", "-p", `t${i}`]),
    );
  }
  const [victim, ...rest] = threads as [string, ...string[]];

  const a = startExec(hostA, victim, "gated");
  await until("host A to hold the lease", async () => {
    const shown = await json<Shown>(hostB, ["thread", "show", victim]);
    return shown.lockHolder?.pid === a.child.pid ? shown : null;
  });
  // The other threads run on either host meanwhile.
  for (const [i, thread] of rest.entries()) {
    await uwf(i % 2 === 0 ? hostB : hostA, [
      "thread",
      "exec",
      thread,
      "-c",
      "5",
      "--agent",
      "quick",
    ]);
  }

  a.child.kill("SIGKILL");
  expect((await a.done).signal).toBe("SIGKILL");

  // B cannot judge A's processes: the lease is live until it expires.
  const refused = await runUwf(["thread", "exec", victim, "-c", "5", "--agent", "gated"], {
    home: hostB,
  });
  expect(refused.code, refused.stderr).toBe(5);
  expect(refused.stderr).toContain("host-a");
  expect((await json<Shown>(hostB, ["thread", "show", victim])).status).toBe("running");

  // Once it has expired, B's next exec takes it over and finishes the thread.
  writeFileSync(gate, "");
  const taken = await until("host B to take the thread over", async () => {
    const result = await runUwf(["thread", "exec", victim, "-c", "5", "--agent", "gated"], {
      home: hostB,
    });
    return result.code === 5 ? null : result;
  });
  expect(taken.code, taken.stderr).toBe(0);

  const shown = await json<Shown>(hostA, ["thread", "show", victim]);
  expect(shown).toMatchObject({ status: "completed", steps: 2, lockHolder: null });
  const list = await json<{ threads: { status: string }[] }>(hostA, ["thread", "list"]);
  expect(list.threads.map((thread) => thread.status)).toEqual([
    "completed",
    "completed",
    "completed",
  ]);
  for (const thread of threads) {
    expect(await chain(hostB, thread)).toEqual(["writer:written", "reviewer:approved"]);
  }
  const verify = await runUwf(["cas", "verify"], { home: hostA });
  expect(verify.code, verify.stdout + verify.stderr).toBe(0);
}, 180_000);
