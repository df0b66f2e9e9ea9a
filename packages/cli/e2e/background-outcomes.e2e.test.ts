/**
 * How a background exec's end reaches the user: what would stop a foreground exec before its
 * first step is refused before the worker detaches, and `thread join` and `thread watch` exit
 * as the exec they report on would have exited in the foreground. Also what an exec (and the
 * commands after it) say about a thread cancelled while it ran.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { UWF_MOCK_BIN } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify as stringifyYaml } from "yaml";
import {
  DRAFT_REVIEW,
  type ExecDoc,
  HELLO,
  mockAgent,
  processesMentioning,
  type Sandbox,
  sandbox,
  scenario,
  showThread,
  startThread,
  uwf,
  uwfJson,
  waitFor,
} from "./fixtures/lifecycle/harness.js";

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

type LogDoc = { events: Record<string, unknown>[] };

async function logEvents(thread: string): Promise<Record<string, unknown>[]> {
  return (await uwfJson<LogDoc>(sb, ["log", "show", "--thread", thread])).events;
}

/** An agent that never answers on its own: the step runs until it is stopped. */
function hangingAgent(): string {
  const never = [
    { role: "greeter", delay_ms: 600_000, output: { $status: "done", greeting: "late" } },
  ];
  return mockAgent(scenario(sb, "hang", never));
}

/** Wait until the agent of `thread`'s `role` runs: an exec interrupted now stops that step. */
async function agentStarted(thread: string, role = "greeter"): Promise<void> {
  const argv = `--thread ${thread} --role ${role} `;
  await waitFor(`the ${role} to start`, () => processesMentioning(argv).length > 0);
}

describe("exec --background checks what a foreground exec checks before its first step", () => {
  it("refuses an unknown agent with exit 2, and starts no worker", async () => {
    const { thread } = await startThread(sb, HELLO, "Greet Ada.");
    const refused = await uwf(sb, [
      "thread",
      "exec",
      thread,
      "--background",
      "--agent",
      "nosuchcmd",
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain('error: unknown agent "nosuchcmd"');
    expect(refused.stderr).toContain("hint: ");

    expect(await showThread(sb, thread)).toMatchObject({ status: "idle", lockHolder: null });
    const events = (await logEvents(thread)).map((e) => e.event);
    expect(events).not.toContain("exec.background");
  });

  it("refuses a role no agent is configured for with exit 2, as the foreground does", async () => {
    const { thread } = await startThread(sb, HELLO, "Greet Ada.");
    const foreground = await uwf(sb, ["thread", "exec", thread]);
    const background = await uwf(sb, ["thread", "exec", thread, "--background"]);
    expect([foreground.code, background.code]).toEqual([2, 2]);
    expect(background.stderr).toBe(foreground.stderr);
    expect(background.stderr).toContain('no agent is configured for role "greeter"');
    expect((await showThread(sb, thread)).lockHolder).toBeNull();
  });
});

describe("thread join and thread watch exit as the background exec did", () => {
  it("a worker that fails between steps: its error, with its exit code", async () => {
    // Only the writer has an agent: the worker runs the writer's step, then finds none for the
    // reviewer, as `exec -c 2` in the foreground would (exit 2).
    const drafted = [{ role: "writer", output: { $status: "drafted", title: "Notes" } }];
    const config = {
      agents: {
        mock: {
          command: process.execPath,
          args: [UWF_MOCK_BIN, "--scenario", scenario(sb, "writer", drafted)],
        },
      },
      agentOverrides: { "draft-review": { writer: "mock" } },
    };
    writeFileSync(join(sb.home, "config.yaml"), stringifyYaml(config), { mode: 0o600 });
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Write release notes.");

    const launched = await uwfJson<ExecDoc>(sb, [
      "thread",
      "exec",
      thread,
      "-c",
      "2",
      "--background",
    ]);
    expect(launched).toMatchObject({ status: "running", stoppedBecause: "background" });

    const joined = await uwf(sb, ["thread", "join", thread]);
    expect(joined.code).toBe(2);
    expect(joined.stdout).toBe("");
    expect(joined.stderr).toContain(
      `error: the background exec of thread ${thread} (pid ${launched.pid}) failed: no agent is configured for role "reviewer"`,
    );
    expect(joined.stderr).toContain("hint: Set `defaultAgent`");
    const watched = await uwf(sb, ["thread", "watch", thread, "--format", "json"]);
    expect(watched.code).toBe(2);
    expect(JSON.parse(watched.stderr).error).toMatchObject({
      code: "AGENT_UNKNOWN",
      exitCode: 2,
      pid: launched.pid,
    });
    // The writer's step stands; the log says why the run ended.
    expect(await showThread(sb, thread)).toMatchObject({ status: "idle", steps: 1 });
    expect((await logEvents(thread)).find((e) => e.event === "exec.error")).toMatchObject({
      pid: launched.pid,
      code: "AGENT_UNKNOWN",
      exitCode: 2,
    });
  });

  it("an agent that failed: exit 4 with the reason; exec on the thread then exits 4 at once", async () => {
    const crash = mockAgent(
      scenario(sb, "crash", [{ role: "greeter", exit: 1, stderr: "the model is gone" }]),
    );
    const { thread } = await startThread(sb, HELLO, "Greet Ada.");
    await uwfJson(sb, ["thread", "exec", thread, "--background", "--agent", crash]);

    const joined = await uwf(sb, ["thread", "join", thread, "--quiet"]);
    expect(joined.code).toBe(4);
    expect(joined.stdout).toContain(`${thread}: suspended after 0 steps — agent "uwf-mock"`);
    expect(joined.stdout).toContain("the model is gone");
    expect(joined.stdout).toContain(`To retry the step: uwf thread resume ${thread}`);
    expect((await uwf(sb, ["thread", "watch", thread])).code).toBe(4);

    // Still suspended by that failure: neither a foreground nor a background exec runs it, and
    // both say so with exit 4 rather than succeed.
    for (const flags of [[], ["--background"]]) {
      const again = await uwf(sb, ["thread", "exec", thread, ...flags, "--format", "json"]);
      expect(again.code).toBe(4);
      const doc = JSON.parse(again.stdout) as ExecDoc;
      expect(doc).toMatchObject({ status: "suspended", stoppedBecause: "failed", steps: [] });
      expect(doc.message).toContain('thread is suspended: role "greeter" failed: agent "uwf-mock"');
      expect(doc.message).toContain(`To retry the step: uwf thread resume ${thread}`);
    }
    expect((await showThread(sb, thread)).lockHolder).toBeNull();
  });

  it("a stopped exec: exit 130, saying where; a later step makes that outcome stale", async () => {
    const { thread, head } = await startThread(sb, HELLO, "Greet Ada.");
    await uwfJson(sb, ["thread", "exec", thread, "--background", "--agent", hangingAgent()]);
    await agentStarted(thread);
    expect((await uwf(sb, ["thread", "stop", thread])).code).toBe(0);

    const joined = await uwf(sb, ["thread", "join", thread]);
    expect(joined.code).toBe(130);
    expect(joined.stdout.trim()).toBe(
      `${thread}: idle after 0 steps — interrupted while role "greeter" ran; the head did not move`,
    );
    const watched = await uwf(sb, ["thread", "watch", thread]);
    expect(watched.code).toBe(130);
    expect(watched.stdout).toContain('interrupted while role "greeter" ran');
    expect(await showThread(sb, thread)).toMatchObject({ status: "idle", head });

    // A foreground exec completes the thread afterwards: join tells the thread as it is now.
    const answers = [{ role: "greeter", output: { $status: "done", greeting: "Hi" } }];
    const done = await uwf(sb, [
      "thread",
      "exec",
      thread,
      "--agent",
      mockAgent(scenario(sb, "hi", answers)),
    ]);
    expect(done.code).toBe(0);
    const rejoined = await uwf(sb, ["thread", "join", thread]);
    expect(rejoined.code).toBe(0);
    expect(rejoined.stdout.trim()).toBe(`${thread}: completed after 1 step`);
  });
});

describe("a foreground exec's end", () => {
  it("is what join and watch exit with later: 130 for one that was stopped", async () => {
    const { thread, head } = await startThread(sb, HELLO, "Greet Ada.");
    const running = uwf(sb, ["thread", "exec", thread, "--agent", hangingAgent()]);
    await agentStarted(thread);
    expect((await uwf(sb, ["thread", "stop", thread])).code).toBe(0);
    expect((await running).code).toBe(130);

    // The thread is idle, as after a run that ended well: the log tells them apart.
    expect(await showThread(sb, thread)).toMatchObject({ status: "idle", head });
    const joined = await uwf(sb, ["thread", "join", thread]);
    expect(joined.code).toBe(130);
    expect(joined.stdout.trim()).toBe(
      `${thread}: idle after 0 steps — interrupted while role "greeter" ran; the head did not move`,
    );
    expect((await uwf(sb, ["thread", "watch", thread])).code).toBe(130);
    expect((await logEvents(thread)).filter((e) => e.event === "exec.end")).toMatchObject([
      { exitCode: 130, stoppedBecause: "stopped" },
    ]);
  });
});

describe("an exec on a thread cancelled while it ran", () => {
  it("ends saying the thread was cancelled; later commands give a hint that works", async () => {
    const { thread } = await startThread(sb, HELLO, "Greet Ada.");
    const running = uwf(sb, ["thread", "exec", thread, "--agent", hangingAgent()]);
    await agentStarted(thread);
    expect((await uwf(sb, ["thread", "cancel", thread])).code).toBe(0);

    const exec = await running;
    expect(exec.code).toBe(130);
    expect(exec.stdout).toContain(
      `${thread}: cancelled — thread was cancelled while role "greeter" ran; the head did not move.`,
    );
    const { workflowHash } = await showThread(sb, thread);
    // No step to fork (a StartNode cannot be): a new thread of the same workflow does the work.
    const startAgain = `uwf thread start ${workflowHash} -p "<task>" --cwd ${sb.work}, with its task and any inputs (--input name=value), which uwf thread read ${thread} shows.`;
    expect(exec.stdout).toContain(startAgain);
    const again = await uwf(sb, ["thread", "exec", thread]);
    expect(again.stdout).toContain(startAgain);
    const poke = await uwf(sb, ["thread", "poke", thread, "-p", "Again"]);
    expect(poke.code).toBe(1);
    expect(poke.stderr).toContain(startAgain);
    const resume = await uwf(sb, ["thread", "resume", thread]);
    expect(resume.code).toBe(1);
    expect(resume.stderr).toContain(startAgain);
    // The hint's command works.
    const task = (await uwf(sb, ["thread", "read", thread])).stdout;
    expect(task).toContain("Greet Ada.");
    const started = await uwf(sb, [
      "thread",
      "start",
      workflowHash,
      "-p",
      "Greet Ada.",
      "--cwd",
      sb.work,
    ]);
    expect(started.code).toBe(0);
  });

  it("a cancelled thread with steps is told to fork one", async () => {
    const answers = [
      { role: "writer", output: { $status: "drafted", title: "Notes" } },
      { role: "reviewer", delay_ms: 600_000, output: { $status: "approved" } },
    ];
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Write release notes.");
    const agent = mockAgent(scenario(sb, "two", answers));
    const running = uwf(sb, ["thread", "exec", thread, "-c", "2", "--agent", agent]);
    await agentStarted(thread, "reviewer");
    await uwf(sb, ["thread", "cancel", thread]);
    const exec = await running;
    expect(exec.code).toBe(130);
    expect(exec.stdout).toContain(
      `${thread}: cancelled — thread was cancelled while role "reviewer" ran; the head did not move. To continue its work, fork one of its steps: uwf step list ${thread}, then uwf step fork <step>.`,
    );
  });
});
