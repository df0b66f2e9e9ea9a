import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  REPO_ROOT,
  runUwf,
  type TempHome,
  tempHome,
  UWF_BIN,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const WORKFLOW = join(REPO_ROOT, "examples", "guarded-fix.yaml");
const fixed = { role: "fixer", output: { $status: "fixed", summary: "a fix" } };
const changes = { role: "reviewer", output: { $status: "changes", remarks: "not yet" } };
const approved = { role: "reviewer", output: { $status: "approved", remarks: "good" } };

// One home per test, and the helpers every describe below uses.
let temp: TempHome;
beforeEach(() => {
  temp = tempHome();
});
afterEach(() => temp.cleanup());
const uwf = (...args: string[]) => runUwf(args, { home: temp.home });
const json = async (...args: string[]) => {
  const run = await uwf(...args, "--format", "json");
  return { code: run.code, doc: JSON.parse(run.stdout || "null"), stderr: run.stderr };
};
/** `--agent` for uwf-mock playing `steps`. */
const agent = (steps: Parameters<typeof writeScenario>[1]) => [
  "--agent",
  `${process.execPath} ${UWF_MOCK_BIN} --scenario ${writeScenario(temp.home, steps)}`,
];
const start = async () =>
  (await uwf("thread", "start", WORKFLOW, "-p", "Fix the pagination")).stdout.trim();

describe("guards (examples/guarded-fix.yaml)", () => {
  it("suspends before the fixer's fourth visit; resume goes past it once a human decides", async () => {
    const thread = await start();
    const mock = agent([fixed, changes, fixed, changes, fixed, changes, fixed, approved]);
    const run = await json("thread", "exec", thread, "-c", "20", ...mock);
    expect(run.code).toBe(0);
    expect(run.doc).toMatchObject({ status: "suspended", stoppedBecause: "guard" });
    expect(run.doc.steps).toHaveLength(6);
    expect(run.doc.message).toContain(
      'role "fixer" has reached its maxVisits of 3 steps in this thread',
    );
    const show = await json("thread", "show", thread);
    expect(show.doc.suspended).toMatchObject({ kind: "guard", guard: "maxVisits", role: "fixer" });
    const text = (await uwf("thread", "show", thread)).stdout;
    expect(text).toContain("suspended guard before fixer:");
    expect(text).toContain(`to go on: uwf thread resume ${thread}`);

    // Another exec does not go past it; a resume does.
    expect((await json("thread", "exec", thread, ...mock)).doc.steps).toEqual([]);
    const resumed = await json("thread", "resume", thread, "-c", "5", ...mock);
    expect(resumed.doc).toMatchObject({ status: "completed", stoppedBecause: "completed" });
    expect(resumed.doc.steps.map((s: { role: string }) => s.role)).toEqual(["fixer", "reviewer"]);
  });

  it("stops at the workflow's maxSteps", async () => {
    const thread = await start();
    // maxVisits 3 of the fixer is lifted by each resume; maxSteps 8 stops the ninth step.
    const mock = agent([
      fixed,
      changes,
      fixed,
      changes,
      fixed,
      changes,
      fixed,
      changes,
      fixed,
      approved,
    ]);
    await json("thread", "exec", thread, "-c", "20", ...mock);
    const resumed = await json("thread", "resume", thread, "-c", "20", ...mock);
    expect(resumed.doc).toMatchObject({ status: "suspended", stoppedBecause: "guard" });
    expect(resumed.doc.message).toContain(
      "the thread has taken 8 steps, its workflow's maxSteps is 8",
    );
  });

  it("retries a rate-limited agent, suspends with a retry-after time, and exec --wait resumes then", async () => {
    writeFileSync(
      join(temp.home, "config.yaml"),
      "retry:\n  maxRetries: 1\n  delaySeconds: 0.05\n  maxDelaySeconds: 0.2\n",
      { mode: 0o600 },
    );
    const thread = await start();
    const mock = agent([{ ...fixed, transient: 3 }, approved]);
    const run = await json("thread", "exec", thread, "-c", "5", ...mock);
    // Two tries (the first and one retry) failed: the thread waits for its retry time.
    expect(run.code).toBe(4);
    expect(run.doc).toMatchObject({ status: "suspended", stoppedBecause: "failed", steps: [] });
    expect(run.doc.message).toContain("failed transiently 2 times");
    expect(run.doc.message).toContain(
      `uwf thread exec ${thread} --wait (or now: uwf thread resume`,
    );
    expect(run.stderr).toContain("↻ fixer: uwf-mock: rate limited (HTTP 429");
    expect(run.stderr).toContain("retry 1 of 1");
    const show = await json("thread", "show", thread);
    expect(show.doc.suspended).toMatchObject({ kind: "retry", role: "fixer" });
    expect(Number.isNaN(Date.parse(show.doc.suspended.retryAfter))).toBe(false);
    expect((await uwf("thread", "show", thread)).stdout).toContain(
      `retry then: uwf thread exec ${thread} --wait`,
    );

    // Without --wait exec leaves it; with --wait it waits for the time, then runs on. The
    // third try fails again and is retried within the run; the fourth succeeds.
    expect((await json("thread", "exec", thread, ...mock)).doc.steps).toEqual([]);
    const waited = await json("thread", "exec", thread, "-c", "5", "--wait", ...mock);
    expect(waited.code).toBe(0);
    expect(waited.doc).toMatchObject({ status: "completed", stoppedBecause: "completed" });
    expect(waited.doc.steps.map((s: { role: string }) => s.role)).toEqual(["fixer", "reviewer"]);
  });

  it("holds the thread while exec --wait waits, and Ctrl-C ends the wait leaving it as it was", async () => {
    const thread = await start();
    // The agent asks for an hour: more than maxDelaySeconds, so the thread suspends at once.
    const mock = agent([{ ...fixed, transient: 1, retry_after: 3600 }, approved]);
    const run = await json("thread", "exec", thread, ...mock);
    expect(run.code).toBe(4);
    const retryAfter = (await json("thread", "show", thread)).doc.suspended.retryAfter;
    expect(Date.parse(retryAfter)).toBeGreaterThan(Date.now() + 3_000_000);

    const child = spawn(process.execPath, [UWF_BIN, "thread", "exec", thread, "--wait", ...mock], {
      env: { ...process.env, UWF_HOME: temp.home },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    const waiting = new Promise<void>((resolve) => {
      child.stderr!.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes("waiting until")) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    await waiting;
    expect(stderr).toContain(`waiting until ${retryAfter} to retry role "fixer"`);
    // While it waits the thread is held: another exec is refused as busy.
    expect((await uwf("thread", "exec", thread, ...mock)).code).toBe(5);
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    const after = await json("thread", "show", thread);
    expect(after.doc).toMatchObject({ status: "suspended", steps: 0 });
    expect(after.doc.suspended).toMatchObject({ kind: "retry", retryAfter });
    // Resume does not wait: it runs the step now.
    const resumed = await json("thread", "resume", thread, "-c", "2", ...mock);
    expect(resumed.doc).toMatchObject({ status: "completed" });
  });
});

describe("thread exec --wait --background (examples/guarded-fix.yaml)", () => {
  /** The process log's events of one kind, from every day's file. */
  const logged = (event: string): Record<string, unknown>[] =>
    readdirSync(join(temp.home, "logs"))
      .flatMap((file) => readFileSync(join(temp.home, "logs", file), "utf8").split("\n"))
      .filter((line) => line.includes(`"${event}"`))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.event === event);

  it("a worker runs the step at once when the retry time has passed", async () => {
    // No retry within the exec, and a retry time 50 ms on: passed by the next command.
    writeFileSync(
      join(temp.home, "config.yaml"),
      "retry:\n  maxRetries: 0\n  delaySeconds: 0.05\n",
      { mode: 0o600 },
    );
    const thread = await start();
    const mock = agent([{ ...fixed, transient: 1 }, approved]);
    expect((await json("thread", "exec", thread, ...mock)).code).toBe(4);
    const before = (await json("thread", "show", thread)).doc;
    expect(before.suspended).toMatchObject({ kind: "retry", role: "fixer" });

    const started = await json(
      "thread",
      "exec",
      thread,
      "-c",
      "5",
      "--wait",
      "--background",
      ...mock,
    );
    expect(started.code).toBe(0);
    expect(started.doc).toMatchObject({ status: "running", stoppedBecause: "background" });
    expect(typeof started.doc.pid).toBe("number");
    const joined = await json("thread", "join", thread, "--quiet");
    expect(joined.code).toBe(0);
    expect(joined.doc).toMatchObject({ status: "completed", steps: 2, suspended: null });
    // It did not wait: the time had come.
    expect(logged("exec.wait")).toEqual([]);
  });

  it("a worker holds the thread while it waits for the retry time; stop ends the wait", async () => {
    const thread = await start();
    // The agent asks for an hour: more than maxDelaySeconds, so the thread suspends at once.
    const mock = agent([{ ...fixed, transient: 1, retry_after: 3600 }, approved]);
    expect((await json("thread", "exec", thread, ...mock)).code).toBe(4);
    const { retryAfter } = (await json("thread", "show", thread)).doc.suspended;

    const started = await json("thread", "exec", thread, "--wait", "--background", ...mock);
    expect(started.doc).toMatchObject({ status: "running", stoppedBecause: "background" });
    // The worker says in the process log that it waits, and until when.
    const deadline = Date.now() + 30_000;
    while (logged("exec.wait").length === 0 && Date.now() < deadline) {
      await new Promise((tick) => setTimeout(tick, 50));
    }
    expect(logged("exec.wait")).toEqual([
      expect.objectContaining({ thread, role: "fixer", retryAfter }),
    ]);
    // Held meanwhile: shown as running, and a second exec is refused as busy.
    expect((await json("thread", "show", thread)).doc.status).toBe("running");
    expect((await uwf("thread", "exec", thread, ...mock)).code).toBe(5);

    // A follower is shown the wait; it returns when the worker lets the thread go.
    const follower = spawn(
      process.execPath,
      [UWF_BIN, "thread", "join", thread, "--format", "json"],
      {
        env: { ...process.env, UWF_HOME: temp.home },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let followed = "";
    let joinedOut = "";
    follower.stdout!.on("data", (chunk: Buffer) => {
      joinedOut += chunk.toString();
    });
    const shown = new Promise<void>((resolve) => {
      follower.stderr!.on("data", (chunk: Buffer) => {
        followed += chunk.toString();
        if (followed.includes("waiting until")) resolve();
      });
    });
    const followerExited = new Promise<number | null>((resolve) => follower.once("exit", resolve));
    await shown;
    expect(followed).toContain(`⏸ fixer: waiting until ${retryAfter} to retry`);

    const stopped = await json("thread", "stop", thread);
    expect(stopped.doc).toMatchObject({ stopped: true, pid: started.doc.pid });
    // The exec it waited on was stopped: join exits as that exec would have, interrupted.
    expect(await followerExited).toBe(130);
    const joined = { doc: JSON.parse(joinedOut) };
    // Nothing ran: the thread still waits for the same retry time.
    expect(joined.doc).toMatchObject({ status: "suspended", steps: 0 });
    expect(joined.doc.suspended).toMatchObject({ kind: "retry", role: "fixer", retryAfter });
  });
});

describe("guards on a human role (examples/approval-gate.yaml with maxVisits)", () => {
  it("stops the approver's third visit at its maxVisits; resume lets the human answer once more", async () => {
    const gate = readFileSync(join(REPO_ROOT, "examples", "approval-gate.yaml"), "utf8");
    const workflow = join(temp.home, "approval-gate.yaml");
    writeFileSync(workflow, gate.replace("    maxVisits: 3\n", "    maxVisits: 2\n"));
    const drafted = { role: "writer", output: { $status: "drafted", title: "2.0", draft: "Out." } };
    // The mock is scripted by step number; the approver's steps are the human's answers.
    const human = { role: "approver", output: { $status: "approved" } };
    const script = [drafted, human, drafted, human, drafted, human];
    const mock = agent(script);
    const thread = (await uwf("thread", "start", workflow, "-p", "Announce 2.0")).stdout.trim();
    const reject = ["thread", "answer", thread, "--status", "rejected", "--set", "reason=More."];
    for (let visit = 1; visit <= 2; visit++) {
      const run = await json("thread", "exec", thread, ...mock);
      expect(
        run.doc.suspended ?? (await json("thread", "show", thread)).doc.suspended,
      ).toMatchObject({ kind: "human", role: "approver" });
      expect((await uwf(...reject)).code).toBe(0);
    }

    // The third draft would bring the approver a third time: the guard stops it first.
    const run = await json("thread", "exec", thread, ...mock);
    expect(run.code).toBe(0);
    expect(run.doc).toMatchObject({ status: "suspended", stoppedBecause: "guard" });
    expect(run.doc.message).toContain(
      'guard, before role "approver": role "approver" has reached its maxVisits of 2 steps in this thread',
    );
    expect(run.doc.message).toContain(`uwf thread resume ${thread}`);
    const show = await json("thread", "show", thread);
    expect(show.doc.suspended).toMatchObject({
      kind: "guard",
      guard: "maxVisits",
      role: "approver",
    });
    // Nobody may answer past the guard without deciding to go past it.
    const refused = await uwf(...reject);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      `is not waiting for a human answer (it is suspended by a workflow guard before role "approver": `,
    );
    expect(refused.stderr).toContain(
      `hint: Run the step it stopped before with: uwf thread resume ${thread}; a human role then waits for uwf thread answer`,
    );

    // A resume goes past it: the approver is asked again and answers.
    const resumed = await json("thread", "resume", thread, ...mock);
    expect(resumed.doc).toMatchObject({ status: "suspended" });
    expect((await json("thread", "show", thread)).doc.suspended).toMatchObject({
      kind: "human",
      role: "approver",
    });
    const approved = await json("thread", "answer", thread, "--status", "approved");
    expect(approved.code).toBe(0);
    expect((await json("thread", "show", thread)).doc).toMatchObject({
      status: "completed",
      steps: 6,
    });
  });
});
