import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { StepPayload } from "@united-workforce/protocol";
import {
  isProcessGone,
  openHomeStore,
  REPO_ROOT,
  type RunResult,
  runUwf,
  type StartedProcess,
  sleep,
  startUwf as startUwfProcess,
  type TempHome,
  tempHome,
  UWF_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

// End-to-end robustness of `uwf thread exec`: the built binary against killed, hung, lying and
// noisy adapters, concurrent execs and stale locks. Every test runs in a fresh UWF_HOME.

const FIXTURES = fileURLToPath(new URL("./fixtures/robustness/", import.meta.url));
const RELAY = join(FIXTURES, "relay.yaml");
const fixture = (name: string) => join(FIXTURES, name);

let temp: TempHome;
let home: string;
const spawned: ChildProcess[] = [];
const strayPids: number[] = [];

beforeAll(() => {
  for (const bin of [UWF_BIN, join(REPO_ROOT, "packages/store/dist/index.js")]) {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`pnpm build\` first`);
  }
});
beforeEach(() => {
  temp = tempHome();
  home = temp.home;
});
afterEach(() => {
  for (const child of spawned.splice(0)) killQuietly(-child.pid!);
  for (const pid of strayPids.splice(0)) killQuietly(pid);
  temp.cleanup();
});

// ---------------------------------------------------------------------------------------------
// Helpers

interface AgentSpec {
  command: string;
  args?: string[];
  timeoutSeconds?: number;
  env?: Record<string, string>;
}

/** config.yaml with these agents (JSON is YAML). */
function writeConfig(agents: Record<string, AgentSpec>, extra: Record<string, unknown> = {}) {
  writeFileSync(join(home, "config.yaml"), JSON.stringify({ agents, ...extra }, null, 2));
}

function mockAgent(scenario: string, timeoutSeconds?: number): AgentSpec {
  return {
    command: "uwf-mock",
    args: ["--scenario", scenario],
    ...(timeoutSeconds ? { timeoutSeconds } : {}),
  };
}

function fixtureAgent(name: string, timeoutSeconds?: number): AgentSpec {
  return {
    command: process.execPath,
    args: [fixture(name)],
    ...(timeoutSeconds ? { timeoutSeconds } : {}),
  };
}

function uwf(args: string[], env: Record<string, string | undefined> = {}): Promise<RunResult> {
  return runUwf(args, { home, cwd: home, env, timeoutMs: 60_000 });
}

async function startThread(options: { cwd?: string; workflow?: string } = {}): Promise<string> {
  const args = ["thread", "start", options.workflow ?? RELAY, "-p", "Relay a line"];
  args.push("--format", "json");
  if (options.cwd) args.push("--cwd", options.cwd);
  const result = await uwf(args);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return (JSON.parse(result.stdout) as { thread: string }).thread;
}

interface ShowDoc {
  head: string;
  status: string;
  steps: number;
  currentRole: string | null;
  suspended: { role: string; reason: string; kind: string } | null;
  lockHolder: unknown;
}

async function show(thread: string): Promise<ShowDoc> {
  const result = await uwf(["thread", "show", thread, "--format", "json"]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as ShowDoc;
}

/**
 * The thread's chain walked from its head: every step belongs to the thread, links to the one
 * before, and the pointer's step count matches. Returns the roles, oldest first.
 */
async function chainRoles(thread: string): Promise<string[]> {
  const pointer = JSON.parse(readFileSync(join(home, "threads", `${thread}.json`), "utf8")) as {
    head: string;
    start: string;
    steps: number;
  };
  const { cas } = await openHomeStore(home);
  const roles: string[] = [];
  let hash: string | null = pointer.head === pointer.start ? null : pointer.head;
  while (hash !== null) {
    const step: StepPayload = await cas.getPayload<StepPayload>(hash, "step");
    expect(step.start).toBe(pointer.start);
    roles.unshift(step.role);
    hash = step.prev;
  }
  expect(pointer.steps).toBe(roles.length);
  return roles;
}

type Running = StartedProcess;

/** Start `uwf` without waiting, so a test can learn its pid or kill it. */
function startUwf(args: string[], env: Record<string, string> = {}): Running {
  const started = startUwfProcess(args, {
    home,
    cwd: home,
    // Orphans must be ended by uwf itself here, not by the adapter noticing its parent died.
    env: { UWF_ADAPTER_WATCH_PARENT: "0", ...env },
    timeoutMs: 120_000,
  });
  spawned.push(started.child);
  return started;
}

interface LockJson {
  holder: { pid: number };
  child: { pid: number; pgid: number } | null;
}

function readLockJson(thread: string): LockJson | null {
  try {
    return JSON.parse(readFileSync(join(home, "locks", `${thread}.lock`), "utf8")) as LockJson;
  } catch {
    return null;
  }
}

/** Gone means no such process, or a zombie nobody reaped yet (it runs no code). */
function killQuietly(pid: number, signal: NodeJS.Signals = "SIGKILL"): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

async function waitFor<T>(
  what: string,
  probe: () => T | null | undefined | false,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Where a gated writer waits: it answers only once the test creates this file. */
const gatePath = () => join(home, "gate");
const openGate = () => writeFileSync(gatePath(), "");

/** The scenario both relay roles answer well with; `gated` holds the writer at the gate. */
function relayScenario(name: string, options: { gated?: boolean } = {}): string {
  return writeScenario(
    home,
    [
      {
        role: "writer",
        output: { $status: "written", text: "hello" },
        ...(options.gated ? { wait_for: gatePath() } : {}),
      },
      { role: "reviewer", output: { $status: "approved" } },
    ],
    name,
  );
}

/** Run one exec that must fail the step: exit 4, head unchanged, suspended with a reason. */
async function expectSuspendedFailure(
  thread: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ result: RunResult; reason: string }> {
  const before = await show(thread);
  const result = await uwf(["thread", "exec", thread, ...args], env);
  expect(result.code, result.stderr).toBe(4);
  expect(result.stdout).toContain(
    `The head did not move. To retry the step: uwf thread resume ${thread}`,
  );
  const after = await show(thread);
  expect(after.head).toBe(before.head);
  expect(after.steps).toBe(before.steps);
  expect(after.status).toBe("suspended");
  expect(after.suspended?.kind).toBe("failure");
  expect(readLockJson(thread)).toBeNull();
  return { result, reason: after.suspended!.reason };
}

// ---------------------------------------------------------------------------------------------

describe("concurrent execs", () => {
  it("ten execs on one thread: one runs the step, nine fail at once naming the holder", async () => {
    writeConfig(
      { mock: mockAgent(relayScenario("gated.yaml", { gated: true })) },
      { defaultAgent: "mock" },
    );
    const thread = await startThread();
    const runs = Array.from({ length: 10 }, () => startUwf(["thread", "exec", thread]));
    const ended = new Set<Running>();
    for (const run of runs) void run.done.then(() => ended.add(run));

    // The step cannot end while the gate is shut, so an exec that ends now did not wait for it.
    await waitFor("nine execs to give up", () => ended.size >= 9);
    const winners = runs.filter((run) => !ended.has(run));
    expect(winners).toHaveLength(1);
    const winner = winners[0]!;
    expect(readLockJson(thread)?.holder.pid).toBe(winner.pid);
    for (const loser of runs.filter((run) => run !== winner)) {
      const result = await loser.done;
      expect(result.code, result.stderr).toBe(5);
      expect(result.stderr).toMatch(new RegExp(`pid ${winner.pid} on \\S+ holds its lease`));
      expect(result.stderr).toContain(`uwf thread join ${thread}`);
    }

    openGate();
    const won = await winner.done;
    expect(won.code, won.stderr).toBe(0);
    expect(await chainRoles(thread)).toEqual(["writer"]);
    expect((await show(thread)).status).toBe("idle");
  });
});

describe("an exec killed with SIGKILL", () => {
  /**
   * Kill the exec at `killAt`, then check what a user would: the thread is never `running`
   * with a dead holder, the next exec continues on its own (taking the stale lock over and
   * ending the orphaned adapter), and the chain ends with exactly writer → reviewer.
   */
  async function killAndRecover(killAt: (run: Running, thread: string) => Promise<void>) {
    const slow = relayScenario("slow.yaml", { gated: true });
    const fast = relayScenario("fast.yaml");
    writeConfig({ slow: mockAgent(slow), fast: mockAgent(fast) });
    const thread = await startThread();
    const run = startUwf(["thread", "exec", thread, "-c", "2", "--agent", "slow"]);
    await killAt(run, thread);
    killQuietly(run.pid);
    await run.done;

    const lock = readLockJson(thread);
    const orphan = lock?.child?.pid ?? null;
    if (orphan !== null) strayPids.push(orphan);
    const orphanOutlivedExec = orphan !== null && !isProcessGone(orphan);
    const shown = await show(thread);
    expect(shown.status).not.toBe("running");
    expect(shown.lockHolder).toBeNull();

    const next = await uwf(["thread", "exec", thread, "-c", "5", "--agent", "fast"]);
    expect(next.code, next.stderr).toBe(0);
    if (orphan !== null) expect(isProcessGone(orphan)).toBe(true);
    expect(readLockJson(thread)).toBeNull();
    expect((await show(thread)).status).toBe("completed");
    expect(await chainRoles(thread)).toEqual(["writer", "reviewer"]);
    // An adapter spawned but killed before uwf recorded it cannot be taken over: let it end.
    openGate();
    return { orphanOutlivedExec };
  }

  it("right after it started", async () => {
    await killAndRecover(async () => {});
  });

  it("while the adapter runs: the next exec kills the orphaned adapter", async () => {
    const { orphanOutlivedExec } = await killAndRecover(async (_run, thread) => {
      await waitFor("the adapter", () => readLockJson(thread)?.child);
    });
    // The adapter runs in its own group, so it outlived the killed exec; it waits at the gate
    // until the end of the test, so only the next exec's takeover can have ended it.
    expect(orphanOutlivedExec).toBe(true);
  });

  it("just as the adapter finished", async () => {
    await killAndRecover(async (_run, thread) => {
      const child = await waitFor("the adapter", () => readLockJson(thread)?.child);
      openGate();
      await waitFor("the adapter to exit", () => isProcessGone(child.pid));
    });
  });
});

describe("forged steps are rejected, the head stays, the thread suspends", () => {
  beforeEach(() => {
    writeConfig({ forge: fixtureAgent("forge.mjs"), mock: mockAgent(relayScenario("ok.yaml")) });
  });

  it("a step of another thread", async () => {
    const other = await startThread();
    expect((await uwf(["thread", "exec", other, "--agent", "mock"])).code).toBe(0);
    const foreign = (await show(other)).head;
    const thread = await startThread();
    const { result, reason } = await expectSuspendedFailure(thread, ["--agent", "forge"], {
      FORGE_MODE: "hash",
      FORGE_HASH: foreign,
    });
    expect(reason).toContain(`step ${foreign} belongs to another thread`);
    expect(result.stderr).toContain("belongs to another thread");

    const again = await uwf(["thread", "resume", thread, "--agent", "forge", "--format", "json"], {
      FORGE_MODE: "hash",
      FORGE_HASH: foreign,
    });
    expect(again.code).toBe(4);
    expect(JSON.parse(again.stdout)).toMatchObject({
      status: "suspended",
      stoppedBecause: "failed",
      steps: [],
    });
  });

  it("a replay of the previous step (stale prev)", async () => {
    const thread = await startThread();
    expect((await uwf(["thread", "exec", thread, "--agent", "mock"])).code).toBe(0);
    const previous = (await show(thread)).head;
    const { reason } = await expectSuspendedFailure(thread, ["--agent", "forge"], {
      FORGE_MODE: "hash",
      FORGE_HASH: previous,
    });
    expect(reason).toContain(`step ${previous} does not follow the current head`);
  });

  it("a step written for another role", async () => {
    const thread = await startThread();
    expect((await uwf(["thread", "exec", thread, "--agent", "mock"])).code).toBe(0);
    const { reason } = await expectSuspendedFailure(thread, ["--agent", "forge"], {
      FORGE_MODE: "wrong-role",
      FORGE_ROLE: "writer",
    });
    expect(reason).toMatch(/is for role "writer", but this step runs role "reviewer"/);
  });

  it("an output that fails the role's schema", async () => {
    const thread = await startThread();
    const { reason } = await expectSuspendedFailure(thread, ["--agent", "forge"], {
      FORGE_MODE: "bad-output",
    });
    expect(reason).toMatch(/fails role "writer"'s schema: .*text.*string/);
  });

  it("a StepNode stored without validation, with a string in its usage", async () => {
    const thread = await startThread();
    const { reason } = await expectSuspendedFailure(thread, ["--agent", "forge"], {
      FORGE_MODE: "malformed",
    });
    expect(reason).toMatch(/^step rejected: step [0-9A-Z]{13} is not a valid StepNode: /);
    expect(reason).toContain("attempts");
    expect((await show(thread)).steps).toBe(0);
  });

  it("a step whose body is not a text node", async () => {
    const thread = await startThread();
    const { reason } = await expectSuspendedFailure(thread, ["--agent", "forge"], {
      FORGE_MODE: "body-type",
    });
    expect(reason).toMatch(/the body of step [0-9A-Z]{13} is not a text node/);
  });

  it("the control: the same fixture writing an honest step is accepted", async () => {
    const thread = await startThread();
    const result = await uwf(["thread", "exec", thread, "--agent", "forge"], {
      FORGE_MODE: "valid",
    });
    expect(result.code, result.stderr).toBe(0);
    expect(await chainRoles(thread)).toEqual(["writer"]);
  });
});

describe("a hung adapter", () => {
  it("times out, its whole process group is killed, and resume then succeeds", async () => {
    writeConfig({ hang: fixtureAgent("hang.mjs", 1), mock: mockAgent(relayScenario("ok.yaml")) });
    const thread = await startThread();
    // The adapter never ends by itself: without the timeout the exec would hang until the
    // test's own deadline.
    const { result, reason } = await expectSuspendedFailure(thread, ["--agent", "hang"]);
    const pids = /hang: adapter (\d+) child (\d+)/.exec(result.stderr);
    expect(pids, result.stderr).not.toBeNull();
    const [adapter, sleeper] = [Number(pids![1]), Number(pids![2])];
    strayPids.push(adapter, sleeper);
    expect(isProcessGone(adapter)).toBe(true);
    expect(isProcessGone(sleeper)).toBe(true);
    expect(reason).toContain('agent "hang" for role "writer" timed out after 1 s');

    const resumed = await uwf(["thread", "resume", thread, "--agent", "mock"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await chainRoles(thread)).toEqual(["writer"]);
    expect((await show(thread)).status).toBe("idle");
  });
});

describe("a long timeout", () => {
  it("longer than a timer can hold does not fire at once", async () => {
    writeConfig({ forge: fixtureAgent("forge.mjs", 10_000_000) });
    const thread = await startThread();
    const result = await uwf(["thread", "exec", thread, "--agent", "forge"], {
      FORGE_MODE: "valid",
    });
    expect(result.stdout).not.toContain("timed out");
    expect(result.code, result.stdout).toBe(0);
    expect(await chainRoles(thread)).toEqual(["writer"]);
  });
});

describe("adapter garbage on stdout", () => {
  beforeEach(() => {
    writeConfig({ noisy: fixtureAgent("noisy.mjs") });
  });

  const noisy = async (mode: string, env: Record<string, string> = {}) => {
    const thread = await startThread();
    const outcome = await expectSuspendedFailure(thread, ["--agent", "noisy"], {
      NOISY_MODE: mode,
      ...env,
    });
    return { thread, ...outcome };
  };

  it("empty stdout", async () => {
    const { reason } = await noisy("empty");
    expect(reason).toBe("step rejected: the adapter printed nothing on stdout");
  });

  it("a last line that is not JSON", async () => {
    const { reason } = await noisy("not-json");
    expect(reason).toBe(
      "step rejected: the adapter's last stdout line is not JSON: All done, no JSON today.",
    );
  });

  it("invalid UTF-8", async () => {
    const { reason } = await noisy("bad-utf8");
    expect(reason).toMatch(/^step rejected: the adapter's last stdout line is not JSON: /);
  });

  it("a non-zero exit, with the tail of its stderr", async () => {
    const { reason, result } = await noisy("fail");
    expect(reason).toMatch(/^agent "noisy" for role "writer" exited with code 7\n/);
    expect(reason).toContain("fatal: the model quota is exhausted");
    expect(reason).toContain("progress line 1000\n");
    expect(reason).not.toContain("progress line 1\n");
    expect(result.stderr).toContain("fatal: the model quota is exhausted");
  });

  it("a multi-byte character split between two reads reaches the user whole", async () => {
    const thread = await startThread();
    const result = await uwf(["thread", "exec", thread, "--agent", "noisy"], {
      NOISY_MODE: "multibyte",
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`x${"é".repeat(40_000)}\n`);
    expect(result.stderr).not.toContain("\uFFFD");
  });

  it("a child the adapter left holding its pipes neither delays the step nor outlives it", async () => {
    const thread = await startThread();
    // The child outlives any deadline of this test: an exec that waited for the pipes to
    // close would never end, and only uwf killing the group can have ended the child.
    const result = await uwf(["thread", "exec", thread, "--agent", "noisy"], {
      NOISY_MODE: "leave-child",
    });
    expect(result.code, result.stderr).toBe(0);
    const left = Number(/noisy: left child (\d+)/.exec(result.stderr)![1]);
    strayPids.push(left);
    expect(isProcessGone(left)).toBe(true);
    expect(await chainRoles(thread)).toEqual(["writer"]);
  });

  // A heap far smaller than 50 MB: buffering the output instead of keeping the last line fails.
  const smallHeap = { NODE_OPTIONS: "--max-old-space-size=40" };

  it("50 MB of garbage is read to the end in bounded memory, then rejected", async () => {
    const { reason } = await noisy("flood-garbage", smallHeap);
    expect(reason).toBe(
      "step rejected: the adapter's last stdout line is not JSON: this last line is not the result",
    );
  });

  it("50 MB of output followed by a valid result line is accepted", async () => {
    const thread = await startThread();
    const result = await uwf(["thread", "exec", thread, "--agent", "noisy"], {
      NOISY_MODE: "flood-valid",
      ...smallHeap,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(await chainRoles(thread)).toEqual(["writer"]);
  });
});

describe("an adapter that cannot start", () => {
  it("a missing binary names the command and how to check it", async () => {
    writeConfig({ ghost: { command: "no-such-binary-xyz" } });
    const thread = await startThread();
    const { reason, result } = await expectSuspendedFailure(thread, ["--agent", "ghost"]);
    const message =
      '"no-such-binary-xyz" not found in PATH. Install it or check your PATH config. Run: which no-such-binary-xyz';
    expect(reason).toBe(message);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toContain(
      "Fix the agent's `command` under `agents:` in $UWF_HOME/config.yaml",
    );
  });

  it("a thread whose working directory was deleted", async () => {
    writeConfig({ mock: mockAgent(relayScenario("ok.yaml")) });
    const gone = join(home, "workdir");
    mkdirSync(gone);
    const thread = await startThread({ cwd: gone });
    rmSync(gone, { recursive: true });
    const { reason } = await expectSuspendedFailure(thread, ["--agent", "mock"]);
    expect(reason).toBe(`working directory "${gone}" does not exist or is not a directory`);
  });

  it("an edge location that does not exist", async () => {
    writeConfig({ mock: mockAgent(relayScenario("ok.yaml")) });
    const workflow = join(home, "relay.yaml");
    writeFileSync(
      workflow,
      readFileSync(RELAY, "utf8").replace(
        'written: { role: reviewer, prompt: "Review this line: {{{text}}}" }',
        'written: { role: reviewer, prompt: "Review this line: {{{text}}}", location: "review/{{{text}}}" }',
      ),
    );
    const thread = await startThread({ workflow });
    expect((await uwf(["thread", "exec", thread, "--agent", "mock"])).code).toBe(0);
    const { reason } = await expectSuspendedFailure(thread, ["--agent", "mock"]);
    expect(reason).toBe(
      `working directory "${join(home, "review/hello")}" does not exist or is not a directory`,
    );
    expect(reason).not.toContain("not found in PATH");
  });

  it("an agent environment too large for the operating system", async () => {
    // Edge prompts of any size go through stdin; what is left to overflow is argv and env.
    writeConfig({
      mock: { ...mockAgent(relayScenario("ok.yaml")), env: { BIG: "y".repeat(200_000) } },
    });
    const thread = await startThread();
    const { reason, result } = await expectSuspendedFailure(thread, ["--agent", "mock"]);
    expect(reason).toMatch(
      /^could not start "uwf-mock": its arguments and environment are too large for the operating system \(\d+ bytes in all, the longest string 20000\d bytes; Linux allows 131072 per string\)$/,
    );
    expect(result.stdout).toContain("shorten the agent's `args` or `env` in config.yaml");
  });

  it("an unknown agent alias is a usage error naming the known ones; nothing changes", async () => {
    writeConfig({ mock: mockAgent(relayScenario("ok.yaml")), forge: fixtureAgent("forge.mjs") });
    const thread = await startThread();
    const result = await uwf(["thread", "exec", thread, "--agent", "mokc"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'unknown agent "mokc": it is not an agent alias in config.yaml, and "mokc" not found in PATH',
    );
    expect(result.stderr).toContain("Known agents: mock, forge.");
    const after = await show(thread);
    expect(after.status).toBe("idle");
    expect(after.steps).toBe(0);
  });
});

describe("frontmatter repair through the real binary", () => {
  it("an invalid first answer is corrected in a second attempt", async () => {
    const scenario = writeScenario(home, [
      {
        role: "writer",
        attempts: [{ $status: "written" }, { $status: "written", text: "fixed" }],
      },
    ]);
    writeConfig({ mock: mockAgent(scenario) });
    const thread = await startThread();
    const result = await uwf(["thread", "exec", thread, "--agent", "mock"]);
    expect(result.code, result.stderr).toBe(0);
    const head = (await show(thread)).head;
    const step = JSON.parse(
      (await uwf(["step", "show", head, "--format", "json"])).stdout,
    ) as StepPayload & { outputValue: unknown };
    expect(step.attempts).toBe(2);
    expect(step.outputValue).toEqual({ $status: "written", text: "fixed" });
    const detail = JSON.parse((await uwf(["cas", "get", step.detail, "--format", "json"])).stdout)
      .payload as { attempts: { valid: boolean; errors: string[]; correction?: string }[] };
    expect(detail.attempts.map((a) => a.valid)).toEqual([false, true]);
    const error = detail.attempts[0]!.errors[0]!;
    expect(error).toMatch(/text/);
    expect(detail.attempts[1]!.correction).toContain(`- ${error}`);
  });

  it("three invalid answers fail closed, keeping every raw output in a detail node", async () => {
    const scenario = writeScenario(home, [
      { role: "writer", attempts: ["no frontmatter", "still none", "nope, again"] },
    ]);
    writeConfig({ mock: mockAgent(scenario) });
    const thread = await startThread();
    const { reason, result } = await expectSuspendedFailure(thread, ["--agent", "mock"]);
    expect(reason).toMatch(/^agent "mock" for role "writer" exited with code 3\n/);
    const named = /kept in detail node ([0-9A-Z]{13})/.exec(result.stderr);
    expect(named, result.stderr).not.toBeNull();
    const detail = JSON.parse((await uwf(["cas", "get", named![1]!, "--format", "json"])).stdout)
      .payload as { attempts: { rawOutput: string }[]; failure: string[] };
    expect(detail.attempts.map((a) => a.rawOutput)).toEqual([
      "no frontmatter",
      "still none",
      "nope, again",
    ]);
    expect(detail.failure.length).toBeGreaterThan(0);
  });
});

describe("stop and cancel", () => {
  async function runHung(): Promise<{ thread: string; run: Running; pids: number[] }> {
    writeConfig({ hang: fixtureAgent("hang.mjs", 600) });
    const thread = await startThread();
    const run = startUwf(["thread", "exec", thread, "--agent", "hang"]);
    const match = await waitFor("the adapter's pids", () =>
      /hang: adapter (\d+) child (\d+)/.exec(run.stderr()),
    );
    const pids = [Number(match[1]), Number(match[2])];
    strayPids.push(...pids);
    expect((await show(thread)).status).toBe("running");
    return { thread, run, pids };
  }

  it("thread stop ends the exec and the adapter's whole group; the thread stays idle", async () => {
    const { thread, run, pids } = await runHung();
    const stopped = await uwf(["thread", "stop", thread]);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toContain(`stopped exec pid ${run.pid}`);
    const exec = await run.done;
    expect(exec.code).toBe(130);
    for (const pid of pids) expect(isProcessGone(pid)).toBe(true);
    const after = await show(thread);
    expect(after.status).toBe("idle");
    expect(after.steps).toBe(0);
    expect(readLockJson(thread)).toBeNull();
  });

  it("thread cancel ends them too and archives the thread", async () => {
    const { thread, run, pids } = await runHung();
    const cancelled = await uwf(["thread", "cancel", thread]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    await run.done;
    for (const pid of pids) expect(isProcessGone(pid)).toBe(true);
    expect((await show(thread)).status).toBe("cancelled");
  });
});

describe("the adapter environment", () => {
  it("gets UWF_HOME/.env without overriding variables already set", async () => {
    writeConfig({ probe: fixtureAgent("env-probe.mjs") });
    writeFileSync(join(home, ".env"), "PROBE_A=from-dotenv\nPROBE_B=from-dotenv\n");
    const thread = await startThread();
    const result = await uwf(["thread", "exec", thread, "--agent", "probe"], {
      PROBE_A: undefined,
      PROBE_B: "from-shell",
    });
    expect(result.code, result.stderr).toBe(0);
    const head = (await show(thread)).head;
    const step = JSON.parse((await uwf(["step", "show", head, "--format", "json"])).stdout) as {
      outputValue: { text: string };
    };
    expect(step.outputValue.text).toBe("from-dotenv|from-shell");
  });

  it("gets the agent's own `env:` from config.yaml over uwf's environment", async () => {
    writeConfig({ probe: { ...fixtureAgent("env-probe.mjs"), env: { PROBE_B: "from-config" } } });
    writeFileSync(join(home, ".env"), "PROBE_A=from-dotenv\n");
    const thread = await startThread();
    const result = await uwf(["thread", "exec", thread, "--agent", "probe"], {
      PROBE_A: undefined,
      PROBE_B: "from-shell",
    });
    expect(result.code, result.stderr).toBe(0);
    const head = (await show(thread)).head;
    const step = JSON.parse((await uwf(["step", "show", head, "--format", "json"])).stdout) as {
      outputValue: { text: string };
    };
    expect(step.outputValue.text).toBe("from-dotenv|from-config");
  });
});
