import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  isProcessGone,
  REPO_ROOT,
  runUwf,
  type StartedProcess,
  sleep,
  startUwf,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, expect, it } from "vitest";

// Ctrl-C twice while the agent ignores SIGTERM: the exec exits at once without releasing its
// lock. The next command sees the lock's holder is gone, takes the lock over at once and says
// so on stderr.

let temp: TempHome;
let exec: StartedProcess | undefined;
beforeEach(() => {
  temp = tempHome();
});
afterEach(() => {
  if (exec && !isProcessGone(exec.pid)) process.kill(-exec.pid, "SIGKILL");
  exec = undefined;
  temp.cleanup();
});

const uwf = (...args: string[]) => runUwf(args, { home: temp.home });

/** An agent that traps SIGTERM (noting it got one) and goes on, never answering. */
function stubbornAgent(): { path: string; termed: string } {
  const path = join(temp.home, "stubborn-agent.sh");
  const termed = join(temp.home, "agent-got-sigterm");
  writeFileSync(path, `#!/bin/sh\ntrap 'echo > ${termed}' TERM\nwhile :; do sleep 1; done\n`);
  chmodSync(path, 0o755);
  return { path, termed };
}

/** Wait for `path` to exist (a generous deadline: it only fails a run that never gets there). */
async function appears(path: string): Promise<void> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(50)) {
    if (existsSync(path)) return;
  }
  throw new Error(`${path} never appeared`);
}

/** The lock's recorded agent, once the exec has started it. */
async function agentOf(thread: string): Promise<number> {
  const lockFile = join(temp.home, "locks", `${thread}.lock`);
  // A generous deadline: it only fails an exec that never starts its agent.
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(50)) {
    if (!existsSync(lockFile)) continue;
    try {
      const pid = JSON.parse(readFileSync(lockFile, "utf8")).child?.pid;
      if (pid) return pid;
    } catch {
      // Being rewritten; read again.
    }
  }
  throw new Error("the exec never recorded its agent");
}

it("a lock left by a double Ctrl-C is taken over by the next command at once, with a note", async () => {
  await uwf("workflow", "add", "examples/hello.yaml");
  const thread = (await uwf("thread", "start", "hello", "-p", "Greet")).stdout.trim();
  const stubborn = stubbornAgent();
  exec = startUwf(["thread", "exec", thread, "--agent", stubborn.path], { home: temp.home });
  const agent = await agentOf(thread);
  process.kill(exec.pid, "SIGINT");
  // The first Ctrl-C was handled (the agent got its SIGTERM and ignored it): a second one now.
  await appears(stubborn.termed);
  process.kill(exec.pid, "SIGINT");
  const interrupted = await exec.done;
  expect(interrupted.code).toBe(130);
  // The lock is left behind, naming a holder that is gone.
  const lock = JSON.parse(readFileSync(join(temp.home, "locks", `${thread}.lock`), "utf8"));
  expect(lock.holder.pid).toBe(exec.pid);

  const mock = `uwf-mock --scenario ${join(REPO_ROOT, "examples/scenarios/hello.yaml")}`;
  const next = await uwf("thread", "exec", thread, "--agent", mock, "--quiet");
  expect(next.code).toBe(0);
  expect(next.stderr).toContain(
    `note: took over the lock of thread ${thread}: its holder, uwf thread exec (pid ${exec.pid} on `,
  );
  expect(isProcessGone(agent)).toBe(true);
  expect(existsSync(join(temp.home, "locks", `${thread}.lock`))).toBe(false);
  const log = await uwf("log", "show", "--format", "json");
  const events: { event: string }[] = JSON.parse(log.stdout).events;
  expect(events.find((event) => event.event === "thread.takeover")).toMatchObject({
    level: "warn",
    thread,
    holder: exec.pid,
    command: "uwf thread exec",
  });
});
