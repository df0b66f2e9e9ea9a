import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeGitRepo, REPO_ROOT } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  type ExecDoc,
  mockAgent,
  type Sandbox,
  type ShowDoc,
  sandbox,
  uwfJson,
} from "./fixtures/lifecycle/harness.js";

const EXAMPLES = join(REPO_ROOT, "examples");
const workflows = readdirSync(EXAMPLES)
  .filter((name) => name.endsWith(".yaml"))
  .map((name) => name.slice(0, -".yaml".length))
  .sort();

/** What an example's header starts its thread with beyond `-p` (triage's typed inputs). */
const START_OPTIONS: Record<string, string[]> = {
  triage: [
    "--input",
    "issue=42",
    "--input",
    "title=Crash on save",
    "--input",
    "urgent=true",
    "--input",
    'labels=["bug"]',
  ],
};

/**
 * The positional entries of an example's mock scenario: one per step, agent, human or script
 * alike; null for a scenario keyed by role only (`roles:`), which scripts agents alone.
 */
function scenarioSteps(name: string): { role: string; output: Record<string, unknown> }[] | null {
  return parse(readFileSync(join(EXAMPLES, "scenarios", `${name}.yaml`), "utf8")).steps ?? null;
}

/**
 * run-tests' script step runs `node --test` in the thread's cwd; its scenario has the tests
 * fail once, then pass after the developer's fix. This test file does that: it fails the
 * first time (leaving a mark) and passes from then on.
 */
function failsOnce(dir: string): void {
  writeFileSync(
    join(dir, "flag.test.mjs"),
    [
      'import { existsSync, writeFileSync } from "node:fs";',
      'import { test } from "node:test";',
      'test("the --verbose flag", () => {',
      '  if (existsSync("fixed.mark")) return;',
      '  writeFileSync("fixed.mark", "");',
      '  throw new Error("expected --verbose in the help text");',
      "});",
      "",
    ].join("\n"),
  );
}

/**
 * in-worktree runs each thread in its own git worktree, made from the repository holding
 * the thread's cwd: the sandbox becomes a repository with one commit, as a user's project is.
 */
const IN_A_REPOSITORY = new Set(["in-worktree"]);

/** The task each example's header comment suggests (`-p "…"` on its second line). */
function suggestedTask(name: string): string {
  const match = /-p "([^"]+)"/.exec(readFileSync(join(EXAMPLES, `${name}.yaml`), "utf8"));
  if (!match) throw new Error(`examples/${name}.yaml: its header shows no \`-p "<task>"\``);
  return match[1]!;
}

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox();
  // guarded-fix's scenario is rate limited once: retry at once rather than after 10 s.
  writeFileSync(join(sb.home, "config.yaml"), "retry:\n  delaySeconds: 0.001\n", {
    mode: 0o600,
  });
});
afterEach(() => sb.cleanup());

describe("every example runs as it is, with its mock scenario", () => {
  it("has a scenario for each workflow, and nothing else", () => {
    const scenarios = readdirSync(join(EXAMPLES, "scenarios"))
      .map((name) => name.replace(/\.yaml$/, ""))
      .sort();
    expect(scenarios).toEqual(workflows);
  });

  it.each(workflows)("%s completes with its scenario", async (name) => {
    const steps = scenarioSteps(name);
    if (name === "run-tests") failsOnce(sb.work);
    if (IN_A_REPOSITORY.has(name)) makeGitRepo(sb.work, sb.work, { "README.md": "# project\n" });
    await uwfJson(sb, ["workflow", "add", join(EXAMPLES, `${name}.yaml`)]);
    const { thread } = await uwfJson<{ thread: string }>(sb, [
      "thread",
      "start",
      name,
      "-p",
      suggestedTask(name),
      ...(START_OPTIONS[name] ?? []),
    ]);
    const agent = mockAgent(join(EXAMPLES, "scenarios", `${name}.yaml`));
    let exec = await uwfJson<ExecDoc>(sb, ["thread", "exec", thread, "-c", "20", "--agent", agent]);
    // A human role: answer as the scenario's entry for that step says, then run on.
    for (
      let answers = 0;
      exec.status === "suspended" && answers < (steps?.length ?? 0);
      answers++
    ) {
      const show = await uwfJson<ShowDoc>(sb, ["thread", "show", thread]);
      expect(show.suspended?.kind, show.suspended?.reason).toBe("human");
      const { $status, ...fields } = steps![show.steps]!.output;
      const sets = Object.entries(fields).flatMap(([key, value]) => ["--set", `${key}=${value}`]);
      await uwfJson(sb, ["thread", "answer", thread, "--status", String($status), ...sets]);
      exec = await uwfJson<ExecDoc>(sb, ["thread", "exec", thread, "-c", "20", "--agent", agent]);
    }
    expect([exec.status, exec.stoppedBecause]).toEqual(["completed", "completed"]);
    // Every positional entry is used: the scenario and the workflow agree step by step.
    const show = await uwfJson<ShowDoc>(sb, ["thread", "show", thread]);
    if (steps !== null) expect(show.steps).toBe(steps.length);
    // Its recording replays through the unchanged workflow: the same route, children included
    // (human answers, script results and fan-outs as they were recorded).
    const replay = await uwfJson<{ ok: boolean }>(sb, ["workflow", "test", name, "--from", thread]);
    expect(replay.ok).toBe(true);
  });

  it("runs the README's demo and its bigger one by copy and paste", () => {
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const demo = blocks.find((block) => block.includes("examples/scenarios/hello.yaml"));
    const bigger = blocks.find((block) => block.includes("examples/scenarios/solve-issue.yaml"));
    expect(demo).toBeDefined();
    expect(bigger).toBeDefined();
    // The demo's own first line makes a temp UWF_HOME; this test's sandbox is used instead.
    const script = [
      "set -e",
      demo!.replace(/UWF_HOME=\$\(mktemp -d\)/, `UWF_HOME=${JSON.stringify(sb.home)}`),
      bigger!,
      'uwf thread show "$id" --format json',
    ].join("\n");
    const out = execFileSync("bash", ["--norc", "--noprofile", "-c", script], {
      cwd: REPO_ROOT,
      encoding: "utf8",
      env: { ...process.env, UWF_HOME: sb.home },
    });
    const show = JSON.parse(out.slice(out.lastIndexOf("\n{\n") + 1)) as { status: string };
    expect(show.status).toBe("completed");
    expect(out).toContain("committer → committed");
  });

  it("runs the README's run-tests and in-worktree instructions by copy and paste", () => {
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const demo = blocks.find((block) => block.includes("examples/scenarios/hello.yaml"));
    const project = blocks.find((block) => block.includes("examples/scenarios/run-tests.yaml"));
    expect(project).toContain("examples/scenarios/in-worktree.yaml");
    // The demo's first line sets PATH (and a temp UWF_HOME: this test's sandbox instead). The
    // scenarios are relative to the checkout, where the commands are typed; the steps run in
    // the project and its worktree, elsewhere.
    const setup = demo!.split("\n")[0]!;
    const script = [
      "set -e",
      setup.replace(/UWF_HOME=\$\(mktemp -d\)/, `UWF_HOME=${JSON.stringify(sb.home)}`),
      project!,
      'uwf thread show "$id" --format json',
    ].join("\n");
    const identity = { NAME: "uwf test", EMAIL: "test@example.com" };
    const out = execFileSync("bash", ["--norc", "--noprofile", "-c", script], {
      cwd: REPO_ROOT,
      encoding: "utf8",
      env: {
        ...process.env,
        UWF_HOME: sb.home,
        TMPDIR: sb.work,
        GIT_AUTHOR_NAME: identity.NAME,
        GIT_AUTHOR_EMAIL: identity.EMAIL,
        GIT_COMMITTER_NAME: identity.NAME,
        GIT_COMMITTER_EMAIL: identity.EMAIL,
      },
    });
    const show = JSON.parse(out.slice(out.lastIndexOf("\n{\n") + 1)) as {
      status: string;
      agent: string;
    };
    expect(show.status).toBe("completed");
    expect(out).toContain("uwf in-worktree");
    // Remembered with the path made absolute: a resume from any directory finds the scenario.
    const scenario = join(EXAMPLES, "scenarios", "in-worktree.yaml");
    expect(show.agent).toBe(`uwf-mock --scenario ${scenario}`);
  });
});
