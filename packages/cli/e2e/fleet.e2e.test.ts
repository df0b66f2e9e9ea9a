import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openHomeStore, REPO_ROOT, startUwf } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  configureMock,
  type ExecDoc,
  type Sandbox,
  sandbox,
  scenario,
  startThread,
  uwf,
  uwfJson,
} from "./fixtures/lifecycle/harness.js";

// Fleet workers: `thread exec --next` claims the oldest runnable thread nobody holds, and
// `--next --wait` keeps doing so until SIGTERM. The many-worker version is
// `pnpm torture:fleet` (bench/fleet-torture.mjs).

const RELAY = join(REPO_ROOT, "bench/hosts-relay.yaml");
const ROLES = ["planner", "worker", "reviewer"] as const;
const STATUSES = ["planned", "done", "approved"] as const;

let sb: Sandbox;
beforeEach(async () => {
  sb = sandbox();
  configureMock(
    sb,
    scenario(
      sb,
      "relay",
      ROLES.map((role, i) => ({ role, output: { $status: STATUSES[i], step: i + 1 } })),
    ),
  );
  expect((await uwf(sb, ["workflow", "add", RELAY])).code).toBe(0);
});
afterEach(() => sb.cleanup());

async function started(workflow = "hosts-relay"): Promise<string> {
  return (await startThread(sb, workflow, "a task")).thread;
}

/** Every event named `name` in the process log, oldest first. */
function logged(name: string): Record<string, unknown>[] {
  const dir = join(sb.home, "logs");
  const events: Record<string, unknown>[] = [];
  for (const file of readdirSync(dir).sort()) {
    for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
      if (line.includes(`"event":"${name}"`)) events.push(JSON.parse(line));
    }
  }
  return events;
}

/** Poll until `condition` holds; the deadline only turns a hang into a clear failure. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("thread exec --next", () => {
  it("claims the oldest runnable thread, skipping a held one and a suspended one", async () => {
    const held = await started();
    const suspended = await started();
    const oldestFree = await started();
    const newest = await started();
    const failed = await uwf(sb, ["thread", "exec", suspended, "--agent", "false"]);
    expect(failed.code, failed.stderr).toBe(4);

    const store = await openHomeStore(sb.home);
    const { lease } = await store.leases.acquire(held, { command: "test holder" });
    try {
      const first = await uwfJson<ExecDoc>(sb, ["thread", "exec", "--next", "-c", "3"]);
      expect(first).toMatchObject({ thread: oldestFree, status: "completed" });
      expect(first.steps.map((step) => step.role)).toEqual([...ROLES]);
      const second = await uwfJson<ExecDoc>(sb, ["thread", "exec", "--next"]);
      expect(second).toMatchObject({ thread: newest, status: "idle", stoppedBecause: "count" });
      expect(second.steps.map((step) => step.role)).toEqual(["planner"]);
      // The newest is runnable again: the claim is of the oldest, and it ran one step.
      const third = await uwfJson<ExecDoc>(sb, ["thread", "exec", "--next"]);
      expect(third.thread).toBe(newest);
    } finally {
      await lease.release();
      await store.close();
    }
    const released = await uwfJson<ExecDoc>(sb, ["thread", "exec", "--next"]);
    expect(released.thread).toBe(held);
    expect(logged("exec.claim").map((e) => e.thread)).toEqual([oldestFree, newest, newest, held]);
  });

  it("claims only threads of the workflow given", async () => {
    const other = join(sb.work, "other-relay.yaml");
    writeFileSync(
      other,
      readFileSync(RELAY, "utf8").replace("name: hosts-relay", "name: other-relay"),
    );
    expect((await uwf(sb, ["workflow", "add", other])).code).toBe(0);
    await started("other-relay");
    const relay = await started();
    const doc = await uwfJson<ExecDoc>(sb, [
      "thread",
      "exec",
      "--next",
      "--workflow",
      "hosts-relay",
      "-c",
      "3",
    ]);
    expect(doc.thread).toBe(relay);
    const none = await uwf(sb, [
      "thread",
      "exec",
      "--next",
      "--workflow",
      "hosts-relay",
      "--format",
      "json",
    ]);
    expect(none.code).toBe(5);
    expect(JSON.parse(none.stderr).error).toMatchObject({
      code: "NO_RUNNABLE_THREAD",
      message: 'no runnable thread of workflow "hosts-relay" is free to claim',
    });
  });

  it("exits 5 with a clear message when no thread is runnable", async () => {
    const none = await uwf(sb, ["thread", "exec", "--next"]);
    expect(none.code).toBe(5);
    expect(none.stdout).toBe("");
    expect(none.stderr).toContain("error: no runnable thread is free to claim");
    expect(none.stderr).toContain("uwf thread exec --next --wait");
  });

  it("refuses a thread id, --background, and --workflow without --next", async () => {
    const thread = await started();
    const named = await uwf(sb, ["thread", "exec", thread, "--next"]);
    expect(named.code).toBe(2);
    expect(named.stderr).toContain("--next claims a thread itself: name none");
    expect((await uwf(sb, ["thread", "exec", "--next", "--background"])).code).toBe(2);
    const filter = await uwf(sb, ["thread", "exec", thread, "--workflow", "hosts-relay"]);
    expect(filter.code).toBe(2);
    expect(filter.stderr).toContain("--workflow goes with --next");
    const bare = await uwf(sb, ["thread", "exec"]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("name the thread to run, or pass --next");
  });
});

describe("thread exec --next --wait", () => {
  it("waits for work, runs a thread started later, and stops on SIGTERM with exit 0", async () => {
    const worker = startUwf(
      ["thread", "exec", "--next", "--wait", "-c", "10", "--poll", "100ms", "--format", "json"],
      { home: sb.home, cwd: sb.work, timeoutMs: 120_000 },
    );
    await until(() => logged("exec.idle").length === 1, "the worker to wait for work");
    expect(logged("exec.idle")[0]).toMatchObject({ workflow: null, pollMs: 100 });

    const thread = await started();
    await until(() => worker.stdout().includes("\n"), "the worker to run the thread");
    const doc = JSON.parse(worker.stdout().trim()) as ExecDoc;
    expect(doc).toMatchObject({ thread, status: "completed", stoppedBecause: "completed" });
    expect(doc.steps.map((step) => step.role)).toEqual([...ROLES]);
    await until(() => logged("exec.idle").length === 2, "the worker to wait again");

    worker.child.kill("SIGTERM");
    const ended = await worker.done;
    expect(ended.code, ended.stderr).toBe(0);
    expect(logged("exec.claim").map((e) => e.thread)).toEqual([thread]);
    const shown = await uwfJson<{ status: string; lockHolder: unknown }>(sb, [
      "thread",
      "show",
      thread,
    ]);
    expect(shown).toMatchObject({ status: "completed", lockHolder: null });
  });

  it("stops a step in flight on SIGTERM as an interrupted exec does, releasing the thread", async () => {
    const slow = scenario(sb, "slow", [
      { role: "planner", output: { $status: "planned", step: 1 }, delay_ms: 60_000 },
    ]);
    configureMock(sb, slow);
    const thread = await started();
    const worker = startUwf(["thread", "exec", "--next", "--wait", "--poll", "100ms"], {
      home: sb.home,
      cwd: sb.work,
      timeoutMs: 120_000,
    });
    await until(
      () => logged("step.start").some((e) => e.thread === thread),
      "the worker to start the step",
    );
    worker.child.kill("SIGTERM");
    const ended = await worker.done;
    expect(ended.code, ended.stderr).toBe(130);
    const shown = await uwfJson<{ status: string; steps: number; lockHolder: unknown }>(sb, [
      "thread",
      "show",
      thread,
    ]);
    expect(shown).toMatchObject({ status: "idle", steps: 0, lockHolder: null });
  });
});
