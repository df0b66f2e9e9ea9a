import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  isProcessGone,
  runUwf,
  sleep,
  type TempHome,
  tempHome,
  UWF_BIN,
  UWF_MOCK_BIN,
  waitUntilGone,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

describe("interrupting an exec", () => {
  let temp: TempHome;
  let thread: string;
  let exec: ChildProcess | undefined;
  const uwf = (...args: string[]) => runUwf(args, { home: temp.home });

  beforeEach(async () => {
    temp = tempHome();
    await uwf("workflow", "add", "examples/hello.yaml");
    thread = (await uwf("thread", "start", "hello", "-p", "Greet")).stdout.trim();
  });
  afterEach(() => {
    if (exec?.pid && !isProcessGone(exec.pid)) exec.kill("SIGKILL");
    temp.cleanup();
  });

  /** Start a slow exec and wait until its lock names the running adapter. */
  async function startSlowExec(): Promise<{
    child: ChildProcess;
    adapterPid: number;
    exited: Promise<number | null>;
  }> {
    const scenario = writeScenario(temp.home, [
      // Far longer than any test here waits: the step never ends by itself while it is tested.
      { role: "greeter", delay_ms: 600_000, output: { $status: "done", greeting: "late" } },
    ]);
    const child = spawn(
      process.execPath,
      [
        UWF_BIN,
        "thread",
        "exec",
        thread,
        "--agent",
        `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`,
      ],
      // The adapter's own parent watch is off: what uwf does about orphans is under test.
      {
        env: { ...process.env, UWF_HOME: temp.home, UWF_ADAPTER_WATCH_PARENT: "0" },
        stdio: "ignore",
      },
    );
    exec = child;
    const exited = new Promise<number | null>((resolve) =>
      child.on("exit", (code, signal) => resolve(code ?? (signal ? 128 : null))),
    );
    const lockFile = join(temp.home, "locks", `${thread}.lock`);
    // A generous deadline: it only fails an exec that never starts its adapter.
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(50)) {
      if (existsSync(lockFile)) {
        try {
          const pid = JSON.parse(readFileSync(lockFile, "utf8")).child?.pid;
          if (pid) return { child, adapterPid: pid, exited };
        } catch {
          // Being rewritten; read again.
        }
      }
    }
    throw new Error("the exec never recorded its adapter");
  }

  it("Ctrl-C stops the agent, exits 130 and leaves the thread idle with its head", async () => {
    const before = JSON.parse((await uwf("thread", "show", thread, "--format", "json")).stdout);
    const { child, adapterPid, exited } = await startSlowExec();
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(await waitUntilGone(adapterPid, 20_000)).toBe(true);
    const after = JSON.parse((await uwf("thread", "show", thread, "--format", "json")).stdout);
    expect(after).toMatchObject({ status: "idle", head: before.head, steps: 0 });
  });

  it("a second Ctrl-C exits at once and still kills the agent", async () => {
    const { child, adapterPid, exited } = await startSlowExec();
    child.kill("SIGINT");
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(await waitUntilGone(adapterPid, 20_000)).toBe(true);
  });

  it("`thread stop` after the exec was SIGKILLed ends its orphaned agent", async () => {
    const { child, adapterPid, exited } = await startSlowExec();
    child.kill("SIGKILL");
    await exited;
    expect(isProcessGone(adapterPid)).toBe(false);
    const stop = await uwf("thread", "stop", thread, "--format", "json");
    expect(stop.code).toBe(0);
    expect(JSON.parse(stop.stdout)).toMatchObject({ stopped: true });
    expect(await waitUntilGone(adapterPid, 20_000)).toBe(true);
    const show = JSON.parse((await uwf("thread", "show", thread, "--format", "json")).stdout);
    expect(show).toMatchObject({ status: "idle", steps: 0, lockHolder: null });
  });
});
