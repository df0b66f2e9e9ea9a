import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type MockScenarioStep,
  REPO_ROOT,
  runUwf,
  type TempHome,
  tempHome,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";

// Record and replay (issue 10): a solve-issue thread recorded once with uwf-mock, then
// replayed by uwf-replay, alone and through `uwf workflow test`, with no scenario at all.
const SOLVE = join(REPO_ROOT, "examples/solve-issue.yaml");
const SCENARIO = join(REPO_ROOT, "examples/scenarios/solve-issue.yaml");
const TASK = "Fix #42: an empty config.yaml crashes the app";
const ROUTE = [
  "planner → ready",
  "developer → done",
  "reviewer → rejected",
  "developer → done",
  "reviewer → approved",
  "tester → passed",
  "committer → committed",
];

let temp: TempHome;
let work: string;
let recorded: string;
let bundle: string;
const uwf = (...args: string[]) => runUwf(args, { home: temp.home, timeoutMs: 120_000 });

/** A copy of solve-issue.yaml with one text replaced (its file name keeps the workflow name). */
function editedWorkflow(folder: string, from: string, to: string): string {
  const text = readFileSync(SOLVE, "utf8");
  expect(text).toContain(from);
  mkdirSync(join(temp.home, folder), { recursive: true });
  const file = join(temp.home, folder, "solve-issue.yaml");
  writeFileSync(file, text.replace(from, to));
  return file;
}

async function stepsOf(thread: string): Promise<{ role: string; status: string; hash: string }[]> {
  const run = await uwf("step", "list", thread, "--format", "json");
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout).steps;
}

beforeAll(async () => {
  temp = tempHome();
  work = join(temp.home, "work");
  mkdirSync(work);
  recorded = (await uwf("thread", "start", SOLVE, "-p", TASK, "--cwd", work)).stdout.trim();
  const run = await uwf(
    "thread",
    "exec",
    recorded,
    "-c",
    "20",
    "--agent",
    `uwf-mock --scenario ${SCENARIO}`,
  );
  expect(run.code, run.stderr).toBe(0);
  bundle = join(temp.home, "recorded.uwf-bundle");
  expect((await uwf("thread", "export", recorded, "-o", bundle)).code).toBe(0);
});
afterAll(() => temp.cleanup());

describe("uwf-replay", () => {
  it("answers every step of a new thread with the same task from the recording: same outputs and bodies", async () => {
    const thread = (await uwf("thread", "start", SOLVE, "-p", TASK, "--cwd", work)).stdout.trim();
    const run = await uwf(
      "thread",
      "exec",
      thread,
      "-c",
      "20",
      "--agent",
      `uwf-replay --from ${bundle}`,
    );
    expect(run.code, run.stderr).toBe(0);
    const replayed = await stepsOf(thread);
    expect(replayed.map((s) => `${s.role} → ${s.status}`)).toEqual(ROUTE);
    const original = await stepsOf(recorded);
    for (const [i, step] of replayed.entries()) {
      const [now, then] = await Promise.all(
        [step.hash, original[i]!.hash].map(async (hash) => {
          const shown = await uwf("step", "show", hash, "--format", "json");
          const doc = JSON.parse(shown.stdout);
          return { output: doc.output, body: doc.body, agent: doc.agent };
        }),
      );
      expect(now!.agent).toBe("uwf-replay");
      expect({ output: now!.output, body: now!.body }).toEqual({
        output: then!.output,
        body: then!.body,
      });
    }
  });

  it("fails a step whose prompt was never recorded, naming the role and the nearest prompt", async () => {
    const thread = (
      await uwf("thread", "start", SOLVE, "-p", "Fix #43: another bug", "--cwd", work)
    ).stdout.trim();
    const run = await uwf("thread", "exec", thread, "--agent", `uwf-replay --from ${recorded}`);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('no recorded step of role "planner" had this prompt');
    expect(run.stderr).toContain(`the nearest is step 1 of thread ${recorded}`);
    expect(run.stderr).toContain(`recorded: "${TASK}"`);
    expect(run.stderr).toMatch(/now: +"Fix #43: another bug"/);
    expect(await stepsOf(thread)).toEqual([]);
  });
});

describe("uwf workflow test", () => {
  it("finds the same route under the same workflow (exit 0), and leaves the store as it was", async () => {
    const before = (await uwf("thread", "list", "--format", "json")).stdout;
    const run = await uwf("workflow", "test", SOLVE, "--from", recorded, "--format", "json");
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc).toMatchObject({ workflow: "solve-issue", ok: true });
    expect(doc.threads).toHaveLength(1);
    expect(doc.threads[0]).toMatchObject({ thread: recorded, result: "same", step: null });
    expect(doc.threads[0].replayed).toEqual(doc.threads[0].recorded);
    expect((await uwf("thread", "list", "--format", "json")).stdout).toBe(before);

    const text = await uwf("workflow", "test", SOLVE, "--from", bundle);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(
      `${recorded} (${bundle}, 7 steps): same route (${ROUTE.join(", ")})`,
    );
    expect(text.stdout).toContain("ok: 1 of 1 thread kept the same route under solve-issue");
  });

  it("reports a miss naming the role when a role's goal changed (exit 1)", async () => {
    const edited = editedWorkflow(
      "goal",
      "goal: Approve only code you would be happy to maintain.",
      "goal: Approve only code you would be proud to maintain.",
    );
    const run = await uwf("workflow", "test", edited, "--from", bundle);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      "miss at step 3: no recorded step of `reviewer` has the prompt it gets now",
    );
    expect(run.stdout).toContain(`nearest recorded prompt: step 3 of thread ${recorded}`);
    expect(run.stdout).toContain('recorded: "Approve only code you would be happy to maintain."');
    expect(run.stdout).toContain('now:      "Approve only code you would be proud to maintain."');
    expect(run.stdout).toContain("FAILED: 0 of 1 thread kept the same route");

    const json = await uwf("workflow", "test", edited, "--from", bundle, "--format", "json");
    expect(json.code).toBe(1);
    const [thread] = JSON.parse(json.stdout).threads;
    expect(thread).toMatchObject({
      result: "miss",
      step: 3,
      miss: { role: "reviewer", nearest: { thread: recorded, step: 3, differentLines: 2 } },
    });
    expect(thread.replayed).toEqual([
      { role: "planner", status: "ready" },
      { role: "developer", status: "done" },
    ]);
  });

  it("reports a different route at the step where an edge now leads elsewhere (exit 1)", async () => {
    // reviewer → rejected now sends the change back to the planner, not the developer.
    const edited = editedWorkflow(
      "edge",
      '      {\n        role: developer,\n        prompt: "The reviewer rejected',
      '      {\n        role: planner,\n        prompt: "The reviewer rejected',
    );
    const run = await uwf("workflow", "test", edited, "--from", recorded, "--format", "json");
    expect(run.code).toBe(1);
    const [thread] = JSON.parse(run.stdout).threads;
    expect(thread).toMatchObject({
      result: "different",
      step: 4,
      reason:
        "after `reviewer` → `rejected`, the workflow now routes to `planner` (recorded: `developer`)",
      miss: null,
    });
    const text = await uwf("workflow", "test", edited, "--from", recorded);
    expect(text.stdout).toContain("different route at step 4: after `reviewer` → `rejected`");
  });

  it("answers a question the way `thread resume -p` answered it, then goes on (exit 0)", async () => {
    // The planner asks first; the answer given with resume -p is in the next planner's prompt.
    const { steps } = parseYaml(readFileSync(SCENARIO, "utf8")) as { steps: MockScenarioStep[] };
    const question = { $status: "insufficient_info", reason: "Which config file: yaml or json?" };
    const scenario = writeScenario(temp.home, [{ role: "planner", output: question }, ...steps]);
    const agent = `uwf-mock --scenario ${scenario}`;
    const asked = (await uwf("thread", "start", SOLVE, "-p", TASK, "--cwd", work)).stdout.trim();
    const first = await uwf("thread", "exec", asked, "-c", "5", "--agent", agent);
    expect(first.code, first.stderr).toBe(0);
    const answer = "The YAML one,\nconfig.yaml at the root.";
    const resumed = await uwf("thread", "resume", asked, "-p", answer, "-c", "20");
    expect(resumed.code, resumed.stderr).toBe(0);
    const run = await uwf("workflow", "test", SOLVE, "--from", asked, "--format", "json");
    expect(run.code, run.stdout).toBe(0);
    const [thread] = JSON.parse(run.stdout).threads;
    expect(thread).toMatchObject({ result: "same" });
    expect(thread.replayed).toHaveLength(steps.length + 1);
  });

  it("gives a replay the guidance `thread steer` gave the recording, at the same step (exit 0)", async () => {
    const agent = `uwf-mock --scenario ${SCENARIO}`;
    const steered = (await uwf("thread", "start", SOLVE, "-p", TASK, "--cwd", work)).stdout.trim();
    expect((await uwf("thread", "exec", steered, "-c", "2", "--agent", agent)).code).toBe(0);
    const guidance = "Keep the fix small:\nno new dependency.";
    expect((await uwf("thread", "steer", steered, "-p", guidance)).code).toBe(0);
    const rest = await uwf("thread", "exec", steered, "-c", "20", "--agent", agent);
    expect(rest.code, rest.stderr).toBe(0);
    const run = await uwf("workflow", "test", SOLVE, "--from", steered, "--format", "json");
    expect(run.code, run.stdout).toBe(0);
    const [thread] = JSON.parse(run.stdout).threads;
    expect(thread).toMatchObject({ result: "same" });
    expect(thread.replayed).toHaveLength(ROUTE.length);
  });

  it("refuses to run without recordings, and names a bundle file that does not exist", async () => {
    const none = await uwf("workflow", "test", SOLVE);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no recordings to test against");
    const missing = await uwf("workflow", "test", SOLVE, "--from", "nowhere.uwf-bundle");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--from nowhere.uwf-bundle: no such file");
  });

  it("refuses a replay command that is not there, saying where uwf-replay comes from (exit 2)", async () => {
    const run = await uwf(
      "workflow",
      "test",
      SOLVE,
      "--from",
      recorded,
      "--replay",
      "no-such-replay",
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'error: --replay "no-such-replay": "no-such-replay" not found in PATH',
    );
    expect(run.stderr).toContain("npm i -g @united-workforce/agent-mock");
  });
});
