import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MockScenarioStep } from "@united-workforce/test-utils";
import { shellQuote } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  configureMock,
  DRAFT_REVIEW,
  type ExecDoc,
  HELLO,
  isAlive,
  mockAgent,
  processesMentioning,
  type Sandbox,
  SOLVE_ISSUE,
  type StepListDoc,
  sandbox,
  scenario,
  showStep,
  showThread,
  startThread,
  stepHashes,
  uwf,
  uwfJson,
  waitFor,
} from "./fixtures/lifecycle/harness.js";

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

/** One planned step of solve-issue: what the mock answers, and what uwf must have asked. */
interface PlannedStep {
  role: string;
  output: Record<string, unknown>;
  usage?: Record<string, number>;
  /** The exact edge prompt, or a check for the resumed step's. */
  edgePrompt: string | ((prompt: string) => void);
  /** The directory the agent must have run in. */
  cwd: string;
}

describe("solve-issue through every edge", () => {
  it("runs planner → … → committer → $END with loops, a $SUSPEND and a resume", async () => {
    const repo = join(sb.work, "repo");
    const worktree = join(sb.work, "worktree");
    mkdirSync(repo);
    mkdirSync(worktree);
    const work = sb.work;
    const question = 'Which <config> & "file" is meant?';
    const answer = 'The "main" <config.yaml> & nothing else';
    const plan = (n: number) => `Plan ${n}: guard <empty> & "blank" files`;
    const done = (n: number) => ({
      $status: "done",
      branch: "fix-42",
      worktree,
      summary: `Attempt ${n}: size < 1 & "" handled`,
    });
    const approved = { $status: "approved", branch: "fix-42", worktree };
    const implement = (n: number) => `Implement this plan in ${repo}, tests first:\n\n${plan(n)}`;
    const review = (n: number) =>
      `Review branch fix-42 for code standards. The developer says: Attempt ${n}: size < 1 & "" handled`;
    const test = "Review passed. Test branch fix-42 against the specification.";

    const steps: PlannedStep[] = [
      {
        role: "planner",
        output: { $status: "insufficient_info", reason: question },
        edgePrompt: "Analyze the issue in the task and write the test specification and plan.",
        cwd: work,
      },
      {
        role: "planner",
        output: { $status: "ready", plan: plan(1), repoPath: repo },
        usage: { inputTokens: 100, outputTokens: 20 },
        edgePrompt: (prompt) => {
          // The planner is asked again what it was asked, with its question and the answer.
          expect(prompt.startsWith("Analyze the issue in the task")).toBe(true);
          expect(prompt).toContain(`The planner needs more information: ${question}`);
          expect(prompt).toContain(answer);
        },
        cwd: work,
      },
      { role: "developer", output: done(1), edgePrompt: implement(1), cwd: repo },
      {
        role: "reviewer",
        output: { $status: "rejected", comments: 'src/a.ts:3 use `<T>` & "const"' },
        edgePrompt: review(1),
        cwd: worktree,
      },
      {
        role: "developer",
        output: done(2),
        usage: { inputTokens: 50 },
        edgePrompt:
          'The reviewer rejected the change. Address every comment:\n\nsrc/a.ts:3 use `<T>` & "const"',
        cwd: work,
      },
      { role: "reviewer", output: approved, edgePrompt: review(2), cwd: worktree },
      {
        role: "tester",
        output: { $status: "fix_spec", report: 'Scenario 2 expects "<none>" & fails' },
        edgePrompt: test,
        cwd: worktree,
      },
      {
        role: "planner",
        output: { $status: "ready", plan: plan(2), repoPath: repo },
        edgePrompt:
          'Tests found problems in the specification. Revise it:\n\nScenario 2 expects "<none>" & fails',
        cwd: work,
      },
      { role: "developer", output: done(3), edgePrompt: implement(2), cwd: repo },
      { role: "reviewer", output: approved, edgePrompt: review(3), cwd: worktree },
      {
        role: "tester",
        output: { $status: "fix_code", report: "a < b & b > c" },
        edgePrompt: test,
        cwd: worktree,
      },
      {
        role: "developer",
        output: done(4),
        edgePrompt: "Tests found problems in the code. Fix them:\n\na < b & b > c",
        cwd: work,
      },
      { role: "reviewer", output: approved, edgePrompt: review(4), cwd: worktree },
      {
        role: "tester",
        output: { $status: "passed", branch: "fix-42", worktree },
        edgePrompt: test,
        cwd: worktree,
      },
      {
        role: "committer",
        output: { $status: "hook_failed", error: 'lint: "x" < 80 & fails' },
        edgePrompt: "All scenarios pass. Commit branch fix-42 and open the pull request.",
        cwd: worktree,
      },
      {
        role: "developer",
        output: done(5),
        edgePrompt: 'Pushing failed in a hook. Fix the cause:\n\nlint: "x" < 80 & fails',
        cwd: work,
      },
      { role: "reviewer", output: approved, edgePrompt: review(5), cwd: worktree },
      {
        role: "tester",
        output: { $status: "passed", branch: "fix-42", worktree },
        edgePrompt: test,
        cwd: worktree,
      },
      {
        role: "committer",
        output: { $status: "committed", prUrl: "https://example.test/pr/7?a=1&b=<2>" },
        edgePrompt: "All scenarios pass. Commit branch fix-42 and open the pull request.",
        cwd: worktree,
      },
      {
        role: "planner",
        output: { $status: "ready", plan: plan(3), repoPath: repo },
        edgePrompt:
          "The previous run finished. Review its result against the issue and plan what is left.",
        cwd: work,
      },
    ];
    const file = scenario(
      sb,
      "solve-issue",
      steps.map(
        (s): MockScenarioStep => ({
          role: s.role,
          output: s.output,
          body: `Body of a ${s.role} step.`,
          ...(s.usage ? { usage: s.usage } : {}),
        }),
      ),
    );
    const agent = ["--agent", mockAgent(file)];
    const started = await startThread(sb, SOLVE_ISSUE, "Fix #42: crash when the config is empty");
    const id = started.thread;
    expect(started).toMatchObject({ workflow: "solve-issue", status: "idle" });
    const startHash = started.head;

    const roles = (doc: ExecDoc) => doc.steps.map((s) => `${s.role}:${s.status}`);
    const expectRun = (doc: ExecDoc, from: number, to: number) =>
      expect(roles(doc)).toEqual(
        steps.slice(from, to).map((s) => `${s.role}:${String(s.output.$status)}`),
      );

    // The planner asks a question: the thread suspends, exit 0, however large -c is.
    const asked = await uwfJson<ExecDoc>(sb, ["thread", "exec", id, "-c", "30", ...agent]);
    expectRun(asked, 0, 1);
    expect(asked).toMatchObject({ status: "suspended", stoppedBecause: "suspended" });
    expect(asked.message).toContain(`uwf thread resume ${id} -p`);
    const waiting = await showThread(sb, id);
    expect(waiting).toMatchObject({
      status: "suspended",
      currentRole: "planner",
      steps: 1,
      suspended: {
        role: "planner",
        kind: "question",
        reason: `The planner needs more information: ${question}`,
      },
    });

    // The answer re-runs the planner; -c counts every step the resume runs.
    const resumed = await uwfJson<ExecDoc>(sb, [
      "thread",
      "resume",
      id,
      "-p",
      answer,
      "-c",
      "2",
      ...agent,
    ]);
    expectRun(resumed, 1, 3);
    expect(resumed).toMatchObject({ status: "idle", stoppedBecause: "count" });

    const one = await uwfJson<ExecDoc>(sb, ["thread", "exec", id, ...agent]);
    expectRun(one, 3, 4);
    expect(one).toMatchObject({ status: "idle", stoppedBecause: "count" });
    const middle = await showThread(sb, id);
    expect(middle).toMatchObject({
      status: "idle",
      currentRole: "reviewer",
      nextRole: "developer",
      steps: 4,
      suspended: null,
      head: one.steps[0]!.hash,
    });

    const nine = await uwfJson<ExecDoc>(sb, ["thread", "exec", id, "-c", "9", ...agent]);
    expectRun(nine, 4, 13);
    expect(nine).toMatchObject({ status: "idle", stoppedBecause: "count" });

    const rest = await uwfJson<ExecDoc>(sb, ["thread", "exec", id, "-c", "50", ...agent]);
    expectRun(rest, 13, 19);
    expect(rest).toMatchObject({ status: "completed", stoppedBecause: "completed" });

    const finished = await showThread(sb, id);
    expect(finished).toMatchObject({
      thread: id,
      workflow: "solve-issue",
      status: "completed",
      currentRole: "committer",
      nextRole: null,
      suspended: null,
      steps: 19,
      head: rest.steps.at(-1)!.hash,
      lockHolder: null,
    });
    // Usage adds up what agents reported; what none reported stays unknown, not zero.
    expect(finished.usage.inputTokens).toBe(150);
    expect(finished.usage.outputTokens).toBe(20);
    expect(finished.usage.costUsd).toBeNull();

    // A completed thread restarts only through `thread resume`, via $START.resume.
    const again = await uwfJson<ExecDoc>(sb, ["thread", "resume", id, ...agent]);
    expectRun(again, 19, 20);
    expect(again).toMatchObject({ status: "idle", stoppedBecause: "count" });

    const list = await uwfJson<StepListDoc>(sb, ["step", "list", id]);
    expect(list.thread).toBe(id);
    expect(list.workflow).toBe("solve-issue");
    expect(list.steps.map((s) => `${s.role}:${s.status}`)).toEqual(
      steps.map((s) => `${s.role}:${String(s.output.$status)}`),
    );
    expect(list.steps.every((s) => s.agent === "uwf-mock")).toBe(true);
    const execHashes = [asked, resumed, one, nine, rest, again].flatMap((d) =>
      d.steps.map((s) => s.hash),
    );
    expect(list.steps.map((s) => s.hash)).toEqual(execHashes);
    const startedAt = list.steps.map((s) => Date.parse(s.startedAt));
    expect(startedAt).toEqual([...startedAt].sort((a, b) => a - b));

    const nodes = await Promise.all(list.steps.map((s) => showStep(sb, s.hash)));
    nodes.forEach((node, i) => {
      const planned = steps[i]!;
      const where = `step ${i + 1} (${planned.role})`;
      expect(node.start, where).toBe(startHash);
      expect(node.prev, where).toBe(i === 0 ? null : list.steps[i - 1]!.hash);
      expect(node.role, where).toBe(planned.role);
      expect(node.outputValue, where).toEqual(planned.output);
      expect(node.cwd, where).toBe(planned.cwd);
      if (typeof planned.edgePrompt === "string")
        expect(node.edgePrompt, where).toBe(planned.edgePrompt);
      else planned.edgePrompt(node.edgePrompt);
    });

    // The resumed planner saw the question and the answer in the prompt it was given.
    const resumedPrompt = await uwf(sb, ["step", "read", list.steps[1]!.hash, "--prompt"]);
    expect(resumedPrompt.code).toBe(0);
    const instruction = resumedPrompt.stdout.slice(
      resumedPrompt.stdout.indexOf("## Moderator Instruction"),
    );
    expect(instruction).toContain(question);
    expect(instruction).toContain(answer);
  });
});

describe("step fork", () => {
  /** writer → reviewer (changes) → writer → reviewer (approved) → $END. */
  async function finishedThread() {
    const file = scenario(sb, "original", [
      { role: "writer", output: { $status: "drafted", title: "First" } },
      { role: "reviewer", output: { $status: "changes", notes: "Shorter." } },
      { role: "writer", output: { $status: "drafted", title: "Second" } },
      { role: "reviewer", output: { $status: "approved" } },
    ]);
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Write a release note");
    const run = await uwfJson<ExecDoc>(sb, [
      "thread",
      "exec",
      thread,
      "-c",
      "9",
      "--agent",
      mockAgent(file),
    ]);
    expect(run.stoppedBecause).toBe("completed");
    return { thread, hashes: run.steps.map((s) => s.hash) };
  }

  it("makes a new thread from a middle step that runs to its own end, leaving the original alone", async () => {
    const original = await finishedThread();
    const before = await showThread(sb, original.thread);
    const middle = original.hashes[1]!;

    const text = await uwf(sb, ["step", "fork", middle]);
    expect(text.code).toBe(0);
    const forkId = text.stdout.trim();
    expect(forkId).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(forkId).not.toBe(original.thread);
    const forked = await uwfJson<{ thread: string; forkedFrom: string }>(sb, [
      "step",
      "fork",
      middle,
    ]);
    expect(forked.forkedFrom).toBe(middle);
    expect(forked.thread).not.toBe(forkId);

    const fork = await showThread(sb, forkId);
    expect(fork).toMatchObject({
      status: "idle",
      head: middle,
      steps: 2,
      currentRole: "reviewer",
      nextRole: "writer",
      workflow: "draft-review",
    });

    // The fork's scenario differs from step 3 on: the reviewer asks a question instead.
    const other = scenario(sb, "fork", [
      { role: "writer", output: { $status: "drafted", title: "unused" } },
      { role: "reviewer", output: { $status: "changes", notes: "unused" } },
      { role: "writer", output: { $status: "drafted", title: "Third" } },
      { role: "reviewer", output: { $status: "unclear", question: "Which release?" } },
    ]);
    const run = await uwfJson<ExecDoc>(sb, [
      "thread",
      "exec",
      forkId,
      "-c",
      "9",
      "--agent",
      mockAgent(other),
    ]);
    expect(run.steps.map((s) => s.status)).toEqual(["drafted", "unclear"]);
    expect(run.stoppedBecause).toBe("suspended");
    expect((await showStep(sb, run.steps[0]!.hash)).prev).toBe(middle);
    // Nothing is copied: the fork's chain shares the original's first two steps.
    expect(await stepHashes(sb, forkId)).toEqual([
      ...original.hashes.slice(0, 2),
      ...run.steps.map((s) => s.hash),
    ]);
    expect((await showThread(sb, forkId)).suspended).toMatchObject({
      kind: "question",
      reason: "The reviewer asks: Which release?",
    });

    expect(await showThread(sb, original.thread)).toEqual(before);
    expect(await stepHashes(sb, original.thread)).toEqual(original.hashes);
  });

  it("forks the final step as a completed thread", async () => {
    const original = await finishedThread();
    const forked = await uwfJson<{ thread: string }>(sb, ["step", "fork", original.hashes[3]!]);
    expect(await showThread(sb, forked.thread)).toMatchObject({
      status: "completed",
      steps: 4,
      head: original.hashes[3],
    });
    const exec = await uwf(sb, ["thread", "exec", forked.thread]);
    expect(exec.code).toBe(0);
    expect(exec.stdout).toContain("completed");
    expect((await showThread(sb, forked.thread)).head).toBe(original.hashes[3]);
  });

  it("runs a fork with the agent its thread was run with", async () => {
    const original = await finishedThread();
    const { agent } = await showThread(sb, original.thread);
    expect(agent).toEqual(expect.any(String));
    const forked = await uwfJson<{ thread: string }>(sb, ["step", "fork", original.hashes[1]!]);
    expect((await showThread(sb, forked.thread)).agent).toBe(agent);
    // No --agent: the original scenario answers steps 3 and 4 again, and the fork completes.
    const run = await uwfJson<ExecDoc>(sb, ["thread", "exec", forked.thread, "-c", "9"]);
    expect(run.steps.map((s) => s.status)).toEqual(["drafted", "approved"]);
    expect(run.stoppedBecause).toBe("completed");
  });

  it("refuses a hash that is not a step", async () => {
    const { head } = await startThread(sb, HELLO, "Greet");
    const result = await uwf(sb, ["step", "fork", head]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`no step ${head}`);
    expect(result.stderr).toContain("hint: `uwf step list <thread>`");
    expect((await uwfJson<{ total: number }>(sb, ["thread", "list"])).total).toBe(1);
  });
});

describe("suspend, resume and cancel rules", () => {
  it("leaves a suspended thread alone on exec and tells how to resume it", async () => {
    const file = scenario(sb, "ask", [
      { role: "writer", output: { $status: "drafted", title: "T" } },
      { role: "reviewer", output: { $status: "unclear", question: "For <whom> & why?" } },
    ]);
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Write a note");
    await uwfJson(sb, ["thread", "exec", thread, "-c", "5", "--agent", mockAgent(file)]);
    const before = await showThread(sb, thread);
    expect(before).toMatchObject({
      status: "suspended",
      suspended: {
        role: "reviewer",
        kind: "question",
        reason: "The reviewer asks: For <whom> & why?",
      },
    });

    const exec = await uwf(sb, ["thread", "exec", thread, "--agent", mockAgent(file)]);
    expect(exec.code).toBe(0);
    expect(exec.stdout).toContain(
      `uwf thread resume ${thread} -p "<your answer>" --agent ${shellQuote(mockAgent(file))}`,
    );
    expect(exec.stdout).toContain("For <whom> & why?");
    expect(await showThread(sb, thread)).toEqual(before);
    const background = await uwfJson<ExecDoc>(sb, ["thread", "exec", thread, "--background"]);
    expect(background).toMatchObject({
      status: "suspended",
      stoppedBecause: "suspended",
      steps: [],
    });
    expect(background.pid).toBeUndefined();
    expect(await showThread(sb, thread)).toEqual(before);

    const noAnswer = await uwf(sb, ["thread", "resume", thread, "--agent", mockAgent(file)]);
    expect(noAnswer.code).toBe(2);
    expect(noAnswer.stderr).toContain(`hint: Answer with: uwf thread resume ${thread} -p`);
    expect((await showThread(sb, thread)).head).toBe(before.head);
  });

  it("refuses to resume an idle thread, with a hint", async () => {
    const { thread, head } = await startThread(sb, HELLO, "Greet");
    const result = await uwf(sb, ["thread", "resume", thread, "-p", "hello?"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("not suspended or completed");
    expect(result.stderr).toContain(`hint: Run its next step with: uwf thread exec ${thread}`);
    expect(await showThread(sb, thread)).toMatchObject({ status: "idle", head, steps: 0 });
  });

  it("does nothing on exec of a completed thread; resume restarts it through $START.resume", async () => {
    const file = scenario(sb, "hello", [
      { role: "greeter", output: { $status: "done", greeting: "Hi" } },
      { role: "greeter", output: { $status: "done", greeting: "Hi again" } },
    ]);
    const { thread } = await startThread(sb, HELLO, "Greet Ada");
    const first = await uwfJson<ExecDoc>(sb, [
      "thread",
      "exec",
      thread,
      "--agent",
      mockAgent(file),
    ]);
    expect(first).toMatchObject({ status: "completed", stoppedBecause: "completed" });
    const done = await showThread(sb, thread);

    const exec = await uwfJson<ExecDoc>(sb, [
      "thread",
      "exec",
      thread,
      "-c",
      "3",
      "--agent",
      mockAgent(file),
    ]);
    expect(exec).toMatchObject({ status: "completed", stoppedBecause: "completed", steps: [] });
    expect(exec.message).toContain(`uwf thread resume ${thread}`);
    expect(await showThread(sb, thread)).toEqual(done);

    const resumed = await uwfJson<ExecDoc>(sb, [
      "thread",
      "resume",
      thread,
      "--agent",
      mockAgent(file),
    ]);
    expect(resumed.steps.map((s) => s.role)).toEqual(["greeter"]);
    expect(resumed.status).toBe("completed");
    const step = await showStep(sb, resumed.steps[0]!.hash);
    expect(step.edgePrompt).toBe("Write a fresh greeting, different from the last one.");
    expect(step.prev).toBe(done.head);
    expect(step.outputValue).toEqual({ $status: "done", greeting: "Hi again" });
    expect(await showThread(sb, thread)).toMatchObject({ status: "completed", steps: 2 });
  });

  it("suspends on an agent's own $SUSPEND, and the answer re-runs that role where and as it ran", async () => {
    const file = scenario(sb, "agent-asks", [
      { role: "writer", output: { $status: "drafted", title: "Notes <v2>" } },
      { role: "reviewer", output: { $status: "$SUSPEND", reason: "Is v2 & v3 one release?" } },
      { role: "reviewer", output: { $status: "approved" } },
    ]);
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Write release notes");
    const run = await uwfJson<ExecDoc>(sb, [
      "thread",
      "exec",
      thread,
      "-c",
      "5",
      "--agent",
      mockAgent(file),
    ]);
    expect(run).toMatchObject({ status: "suspended", stoppedBecause: "suspended" });
    expect(run.steps.map((s) => s.status)).toEqual(["drafted", "$SUSPEND"]);
    expect((await showThread(sb, thread)).suspended).toEqual({
      role: "reviewer",
      reason: "Is v2 & v3 one release?",
      kind: "question",
    });

    const resumed = await uwfJson<ExecDoc>(sb, [
      "thread",
      "resume",
      thread,
      "-p",
      "Yes, one.",
      "--agent",
      mockAgent(file),
    ]);
    expect(resumed).toMatchObject({ status: "completed", stoppedBecause: "completed" });
    const step = await showStep(sb, resumed.steps[0]!.hash);
    expect(step.role).toBe("reviewer");
    expect(step.prev).toBe(run.steps[1]!.hash);
    // The reviewer keeps its instruction and its folder, and gets the question with the answer.
    expect(step.cwd).toBe(join(sb.work, "review"));
    expect(step.edgePrompt).toContain("Review the draft Notes <v2>.");
    expect(step.edgePrompt).toContain("Is v2 & v3 one release?");
    expect(step.edgePrompt).toContain("Yes, one.");
  });

  it("shows, as the next role, the one resume runs again after an agent failed", async () => {
    const crash = scenario(sb, "crash", [
      { role: "greeter", exit: 1, stderr: "boom" },
      { role: "greeter", exit: 1, stderr: "boom" },
    ]);
    const good = scenario(sb, "good", [
      { role: "greeter", output: { $status: "done", greeting: "Hi" } },
      { role: "greeter", output: { $status: "done", greeting: "Hi again" } },
    ]);
    const { thread } = await startThread(sb, HELLO, "Greet Ada");

    // The first step's agent crashed: resume runs the greeter, where $START.new leads.
    const first = await uwf(sb, ["thread", "exec", thread, "--agent", mockAgent(crash)]);
    expect(first.code).toBe(4);
    expect(await showThread(sb, thread)).toMatchObject({
      status: "suspended",
      currentRole: null,
      nextRole: "greeter",
      suspended: { role: "greeter", kind: "failure" },
    });
    expect((await uwf(sb, ["thread", "show", thread])).stdout).toContain(
      "role      last: —, next: greeter\n",
    );
    await uwfJson(sb, ["thread", "resume", thread, "--agent", mockAgent(good)]);

    // A completed thread's restart crashed: resume runs $START.resume's greeter again.
    const restart = await uwf(sb, ["thread", "resume", thread, "--agent", mockAgent(crash)]);
    expect(restart.code).toBe(4);
    const waiting = await showThread(sb, thread);
    expect(waiting).toMatchObject({
      status: "suspended",
      currentRole: "greeter",
      nextRole: "greeter",
      suspended: { role: "greeter", kind: "failure" },
    });
    expect(waiting.suspended).not.toHaveProperty("replaceHead");
    const again = await uwfJson<ExecDoc>(sb, [
      "thread",
      "resume",
      thread,
      "--agent",
      mockAgent(good),
    ]);
    expect(again).toMatchObject({ status: "completed", steps: [{ role: "greeter" }] });
    expect(await showThread(sb, thread)).toMatchObject({ nextRole: null, steps: 2 });
    expect((await uwf(sb, ["thread", "verify", thread])).code).toBe(0);
  });

  it("refuses to cancel a completed thread", async () => {
    const file = scenario(sb, "hello", [
      { role: "greeter", output: { $status: "done", greeting: "Hi" } },
    ]);
    const { thread } = await startThread(sb, HELLO, "Greet");
    await uwfJson(sb, ["thread", "exec", thread, "--agent", mockAgent(file)]);
    const result = await uwf(sb, ["thread", "cancel", thread]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("completed thread cannot be cancelled");
    expect(result.stderr).toContain("hint:");
    expect((await showThread(sb, thread)).status).toBe("completed");
  });

  it("cancels an idle thread: exec then does nothing and resume is refused", async () => {
    const file = scenario(sb, "hello", [
      { role: "greeter", output: { $status: "done", greeting: "Hi" } },
    ]);
    const { thread, head } = await startThread(sb, HELLO, "Greet");
    const cancel = await uwfJson<{ thread: string; status: string }>(sb, [
      "thread",
      "cancel",
      thread,
    ]);
    expect(cancel).toEqual({ thread, status: "cancelled" });

    // Nothing runs, and the exit code says the thread was cancelled, as join's does.
    for (const background of [[], ["--background"]]) {
      const exec = await uwf(sb, [
        "thread",
        "exec",
        thread,
        "--agent",
        mockAgent(file),
        ...background,
        "--format",
        "json",
      ]);
      expect(exec.code, exec.stderr).toBe(130);
      expect(JSON.parse(exec.stdout)).toMatchObject({
        status: "cancelled",
        stoppedBecause: "cancelled",
        steps: [],
      });
    }
    const join = await uwf(sb, ["thread", "join", thread]);
    expect(join.code, join.stderr).toBe(130);
    expect(await showThread(sb, thread)).toMatchObject({ status: "cancelled", head, steps: 0 });

    const resume = await uwf(sb, [
      "thread",
      "resume",
      thread,
      "-p",
      "go",
      "--agent",
      mockAgent(file),
    ]);
    expect(resume.code).toBe(1);
    expect(resume.stderr).toContain("cancelled and cannot be resumed");
    expect(resume.stderr).toContain("hint:");
    expect((await showThread(sb, thread)).head).toBe(head);
  });
});

/** A draft-review thread after two steps: the writer's draft, then the reviewer's "changes". */
async function draftedAndReviewed(): Promise<{ thread: string; draft: string; oldHead: string }> {
  const first = scenario(sb, "first", [
    { role: "writer", output: { $status: "drafted", title: "Draft" } },
    { role: "reviewer", output: { $status: "changes", notes: "Too long." } },
  ]);
  const { thread } = await startThread(sb, DRAFT_REVIEW, "Write a note");
  const run = await uwfJson<ExecDoc>(sb, [
    "thread",
    "exec",
    thread,
    "-c",
    "2",
    "--agent",
    mockAgent(first),
  ]);
  const [draft, oldHead] = run.steps.map((s) => s.hash) as [string, string];
  return { thread, draft, oldHead };
}

describe("thread poke", () => {
  it("re-runs the head's role with the new text and replaces the head step", async () => {
    const { thread, draft, oldHead } = await draftedAndReviewed();
    const before = await showThread(sb, thread);
    expect(before).toMatchObject({ head: oldHead, steps: 2 });

    // The poked reviewer answers differently (the same scenario entry, another file).
    const poked = scenario(sb, "poked", [
      { role: "writer", output: { $status: "drafted", title: "unused" } },
      { role: "reviewer", output: { $status: "approved" } },
    ]);
    const text = 'Judge only the <title> & "tone".';
    const poke = await uwfJson<ExecDoc>(sb, [
      "thread",
      "poke",
      thread,
      "-p",
      text,
      "--agent",
      mockAgent(poked),
    ]);
    expect(poke.steps.map((s) => `${s.role}:${s.status}`)).toEqual(["reviewer:approved"]);
    const newHead = poke.steps[0]!.hash;
    expect(newHead).not.toBe(oldHead);

    expect(await showThread(sb, thread)).toMatchObject({
      head: newHead,
      steps: 2,
      status: "completed",
      currentRole: "reviewer",
    });
    expect(await stepHashes(sb, thread)).toEqual([draft, newHead]);
    const step = await showStep(sb, newHead);
    expect(step.prev).toBe(draft);
    expect(step.role).toBe("reviewer");
    expect(step.edgePrompt).toContain("Review the draft Draft.");
    expect(step.edgePrompt).toContain(text);
    expect(step.cwd).toBe(join(sb.work, "review"));

    const has = await uwf(sb, ["cas", "has", oldHead]);
    expect([has.code, has.stdout.trim()]).toEqual([0, "yes"]);
  });

  it("that failed is retried by resume in the head's place, keeping the route whole", async () => {
    const { thread, draft, oldHead } = await draftedAndReviewed();

    // The poked reviewer's agent crashes: the thread waits, the head unmoved.
    const crash = scenario(sb, "crash", [
      { role: "writer", output: { $status: "drafted", title: "unused" } },
      { role: "reviewer", exit: 1, stderr: "boom" },
    ]);
    const text = "Judge only the tone.";
    const poke = await uwf(sb, ["thread", "poke", thread, "-p", text, "--agent", mockAgent(crash)]);
    expect(poke.code).toBe(4);

    // show names the role resume runs, and that it replaces the head (the head's "changes"
    // leads to the writer, so a reviewer after it would be off the route).
    expect(await showThread(sb, thread)).toMatchObject({
      status: "suspended",
      head: oldHead,
      steps: 2,
      currentRole: "reviewer",
      nextRole: "reviewer",
      suspended: { role: "reviewer", kind: "failure", replaceHead: true },
    });
    const shown = await uwf(sb, ["thread", "show", thread]);
    expect(shown.stdout).toContain(
      "role      last: reviewer, next: reviewer (replacing the head, as the failed poke would have)",
    );

    const approve = scenario(sb, "approve", [
      { role: "writer", output: { $status: "drafted", title: "unused" } },
      { role: "reviewer", output: { $status: "approved" } },
    ]);
    // exec runs nothing on it, whatever agent it is given: it says again why, and how to
    // retry the step with that agent.
    const exec = await uwf(sb, ["thread", "exec", thread, "--agent", mockAgent(approve)]);
    expect(exec.code, exec.stderr).toBe(4);
    expect(exec.stdout).toContain(
      `To retry the step: uwf thread resume ${thread} --agent ${shellQuote(mockAgent(approve))}`,
    );
    expect(await showThread(sb, thread)).toMatchObject({ head: oldHead, steps: 2 });

    const resumed = await uwfJson<ExecDoc>(sb, [
      "thread",
      "resume",
      thread,
      "--agent",
      mockAgent(approve),
    ]);
    expect(resumed.steps.map((s) => `${s.role}:${s.status}`)).toEqual(["reviewer:approved"]);
    const newHead = resumed.steps[0]!.hash;
    expect(await showThread(sb, thread)).toMatchObject({
      status: "completed",
      head: newHead,
      steps: 2,
      suspended: null,
    });
    expect(await stepHashes(sb, thread)).toEqual([draft, newHead]);
    const step = await showStep(sb, newHead);
    expect(step.prev).toBe(draft);
    expect(step.edgePrompt).toContain("Review the draft Draft.");
    expect(step.edgePrompt).toContain(text);
    expect(step.cwd).toBe(join(sb.work, "review"));

    const verify = await uwf(sb, ["thread", "verify", thread]);
    expect(verify.code, verify.stdout).toBe(0);
  });

  it("refuses a thread with no step yet, and requires -p", async () => {
    const { thread } = await startThread(sb, HELLO, "Greet");
    const noStep = await uwf(sb, ["thread", "poke", thread, "-p", "again"]);
    expect(noStep.code).toBe(1);
    expect(noStep.stderr).toContain(`hint: Run its first step with: uwf thread exec ${thread}`);
    const noText = await uwf(sb, ["thread", "poke", thread]);
    expect(noText.code).toBe(2);
    expect(noText.stderr).toContain("--prompt is required");
  });
});

describe("background exec, join and stop", () => {
  it("runs in the background, shows running, and join reports the end", async () => {
    // The step waits at a gate the test opens only after it has looked at the running thread,
    // so the launcher cannot have waited for the step, and the thread is surely still running.
    const gate = join(sb.home, "gate");
    const file = scenario(sb, "gated", [
      { role: "greeter", wait_for: gate, output: { $status: "done", greeting: "Hi" } },
    ]);
    configureMock(sb, file);
    const { thread } = await startThread(sb, HELLO, "Greet slowly");

    const launched = await uwfJson<ExecDoc>(sb, ["thread", "exec", thread, "--background"]);
    expect(launched).toMatchObject({
      thread,
      status: "running",
      stoppedBecause: "background",
      steps: [],
    });
    expect(launched.pid).toBeGreaterThan(0);

    const running = await showThread(sb, thread);
    expect(running.status).toBe("running");
    expect(running.steps).toBe(0);
    expect(running.lockHolder?.pid).toBe(launched.pid);
    const listed = await uwfJson<{ threads: { thread: string }[] }>(sb, [
      "thread",
      "list",
      "--status",
      "running",
    ]);
    expect(listed.threads.map((t) => t.thread)).toEqual([thread]);

    const busy = await uwf(sb, ["thread", "exec", thread]);
    expect(busy.code).toBe(5);
    expect(busy.stderr).toContain(String(launched.pid));

    writeFileSync(gate, "");
    const joined = await uwfJson<{ status: string; steps: number; head: string }>(sb, [
      "thread",
      "join",
      thread,
    ]);
    expect(joined).toMatchObject({ status: "completed", steps: 1 });
    expect(await showThread(sb, thread)).toMatchObject({
      status: "completed",
      lockHolder: null,
      head: joined.head,
    });

    const log = await uwfJson<{ events: Record<string, unknown>[] }>(sb, [
      "log",
      "show",
      "--thread",
      thread,
    ]);
    // Each event names the process that wrote it: the launcher, then the worker it started.
    const launch = log.events.find((e) => e.event === "exec.background");
    expect(launch).toMatchObject({ worker: launched.pid });
    expect(launch?.pid).not.toBe(launched.pid);
    expect(log.events.find((e) => e.event === "step.done")).toMatchObject({
      pid: launched.pid,
      role: "greeter",
      status: "done",
      step: joined.head,
    });
  });

  it("stop ends the exec and its agent, leaves the thread idle, and the next exec works", async () => {
    const slow = scenario(sb, "hang", [
      { role: "greeter", delay_ms: 60_000, output: { $status: "done", greeting: "never" } },
    ]);
    const { thread, head } = await startThread(sb, HELLO, "Greet");
    const launched = await uwfJson<ExecDoc>(sb, [
      "thread",
      "exec",
      thread,
      "--background",
      "--agent",
      mockAgent(slow),
    ]);
    const isAgentOfThread = () => processesMentioning(`--thread ${thread}`).length > 0;
    await waitFor("the mock agent to start", isAgentOfThread);
    const holder = (await showThread(sb, thread)).lockHolder;
    expect(holder?.pid).toBe(launched.pid);

    const stopped = await uwfJson<{ stopped: boolean; pid: number }>(sb, [
      "thread",
      "stop",
      thread,
    ]);
    expect(stopped).toMatchObject({ stopped: true, pid: launched.pid });
    expect(isAlive(launched.pid!)).toBe(false);
    expect(isAgentOfThread()).toBe(false);
    expect(await showThread(sb, thread)).toMatchObject({
      status: "idle",
      head,
      steps: 0,
      lockHolder: null,
      suspended: null,
    });

    const again = await uwf(sb, ["thread", "stop", thread]);
    expect([again.code, again.stdout.trim()]).toEqual([0, "no exec is running on this thread"]);

    const quick = scenario(sb, "quick", [
      { role: "greeter", output: { $status: "done", greeting: "Hi" } },
    ]);
    const exec = await uwfJson<ExecDoc>(sb, [
      "thread",
      "exec",
      thread,
      "--agent",
      mockAgent(quick),
    ]);
    expect(exec).toMatchObject({ status: "completed", stoppedBecause: "completed" });
  });
});

describe("thread cancel of a running exec", () => {
  it("stops the exec and its agent, then archives the thread as cancelled", async () => {
    const slow = scenario(sb, "hang", [
      { role: "greeter", delay_ms: 60_000, output: { $status: "done", greeting: "never" } },
    ]);
    const { thread, head } = await startThread(sb, HELLO, "Greet");
    const launched = await uwfJson<ExecDoc>(sb, [
      "thread",
      "exec",
      thread,
      "--background",
      "--agent",
      mockAgent(slow),
    ]);
    const isAgentOfThread = () => processesMentioning(`--thread ${thread}`).length > 0;
    await waitFor("the mock agent to start", isAgentOfThread);

    const cancel = await uwfJson(sb, ["thread", "cancel", thread]);
    expect(cancel).toEqual({ thread, status: "cancelled" });
    expect(isAlive(launched.pid!)).toBe(false);
    expect(isAgentOfThread()).toBe(false);
    expect(await showThread(sb, thread)).toMatchObject({
      status: "cancelled",
      head,
      steps: 0,
      lockHolder: null,
    });
  });
});
