import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { REPO_ROOT, type TempHome, tempHome, UWF_MOCK_BIN } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";

// The repository's GitHub Action (action.yml), run the way a runner runs a composite action:
// each step's `run` with bash, the runner's variables (GITHUB_EVENT_PATH, GITHUB_EVENT_NAME,
// GITHUB_OUTPUT, GITHUB_PATH, GITHUB_ACTION_PATH, GITHUB_WORKSPACE, RUNNER_TEMP), `${{ inputs.x }}`
// and `${{ steps.id.outputs.x }}` expanded, a step's GITHUB_PATH lines put on later steps' PATH.
//
// One replacement, said here and in docs/triggers.md: the install step (which packs this
// checkout and `npm install -g`s it, what scripts/install-cli.test.ts tests) is replaced by
// putting the built `uwf` on PATH, as that step's GITHUB_PATH line does.

interface ActionStep {
  name: string;
  id?: string;
  shell: string;
  run: string;
  env?: Record<string, string>;
}
interface Action {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

const action = parse(readFileSync(join(REPO_ROOT, "action.yml"), "utf8")) as Action;
const ISSUE_OPENED = join(REPO_ROOT, "examples/events/issues.opened.json");
const TRIAGE_SCENARIO = join(REPO_ROOT, "examples/scenarios/triage.yaml");

let temp: TempHome;
let runnerTemp: string;
let workspace: string;
let builtUwf: string;
beforeEach(() => {
  temp = tempHome();
  runnerTemp = join(temp.home, "runner-temp");
  workspace = join(temp.home, "workspace");
  builtUwf = join(temp.home, "built-uwf");
  for (const dir of [runnerTemp, workspace, builtUwf]) mkdirSync(dir, { recursive: true });
  // The checked-out repository the workflow lives in.
  cpSync(join(REPO_ROOT, "examples"), join(workspace, "examples"), { recursive: true });
  symlinkSync(join(REPO_ROOT, "packages/cli/bin/uwf.cjs"), join(builtUwf, "uwf"));
});
afterEach(() => temp.cleanup());

/** `${{ inputs.x }}` and `${{ steps.id.outputs.x }}`, as the runner expands them. */
function expand(
  text: string,
  inputs: Record<string, string>,
  steps: Record<string, Record<string, string>>,
): string {
  return text.replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_, expression: string) => {
    const [scope, ...rest] = expression.split(".");
    if (scope === "inputs") return inputs[rest[0]!] ?? action.inputs[rest[0]!]?.default ?? "";
    if (scope === "steps" && rest[1] === "outputs") return steps[rest[0]!]?.[rest[2]!] ?? "";
    throw new Error(`the simulated runner cannot expand \${{ ${expression} }}`);
  });
}

/** `name=value` lines (and `name<<EOF` blocks) of a GITHUB_OUTPUT file. */
function readOutputs(file: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return outputs;
  }
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc !== null) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      outputs[heredoc[1]!] = lines.slice(i + 1, end).join("\n");
      i = end;
    } else if (line.includes("=")) {
      outputs[line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1);
    }
  }
  return outputs;
}

interface ActionRun {
  /** The exit code of the step that failed, or 0. */
  code: number;
  outputs: Record<string, string>;
  log: string;
}

/** Run action.yml's steps for one event, as one job of a workflow using the action. */
function runAction(
  event: { name: string; path: string },
  inputs: Record<string, string>,
): ActionRun {
  expect(action.runs.using).toBe("composite");
  for (const [name, input] of Object.entries(action.inputs)) {
    if (input.required) expect(inputs, `input ${name} is required`).toHaveProperty(name);
  }
  const steps: Record<string, Record<string, string>> = {};
  const githubPath = join(runnerTemp, `path-${Date.now()}-${Math.random()}`);
  writeFileSync(githubPath, "");
  const baseEnv = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(UWF_|GITHUB_|RUNNER_|INPUT_)/.test(name)),
  );
  let log = "";
  for (const [index, step] of action.runs.steps.entries()) {
    if (step.name.startsWith("Install uwf")) {
      // The replacement the header names: the built uwf goes on PATH, as the step would put it.
      expect(step.run).toContain('action.mjs" install');
      writeFileSync(githubPath, `${builtUwf}\n`, { flag: "a" });
      continue;
    }
    expect(step.shell).toBe("bash");
    const output = join(runnerTemp, `output-${index}-${Math.random()}`);
    writeFileSync(output, "");
    const path = readFileSync(githubPath, "utf8").split("\n").filter(Boolean).reverse();
    const stepEnv = Object.fromEntries(
      Object.entries(step.env ?? {}).map(([name, value]) => [name, expand(value, inputs, steps)]),
    );
    const result = spawnSync(
      "bash",
      ["--noprofile", "--norc", "-eo", "pipefail", "-c", expand(step.run, inputs, steps)],
      {
        cwd: workspace,
        encoding: "utf8",
        env: {
          ...baseEnv,
          PATH: [...path, baseEnv.PATH].join(delimiter),
          CI: "true",
          GITHUB_ACTIONS: "true",
          GITHUB_ACTION_PATH: REPO_ROOT,
          GITHUB_WORKSPACE: workspace,
          GITHUB_EVENT_NAME: event.name,
          GITHUB_EVENT_PATH: event.path,
          GITHUB_OUTPUT: output,
          GITHUB_PATH: githubPath,
          RUNNER_TEMP: runnerTemp,
          ...stepEnv,
        },
      },
    );
    log += result.stdout + result.stderr;
    if (step.id !== undefined) steps[step.id] = readOutputs(output);
    if (result.status !== 0)
      return { code: result.status ?? 1, outputs: actionOutputs(inputs, steps), log };
  }
  return { code: 0, outputs: actionOutputs(inputs, steps), log };
}

function actionOutputs(
  inputs: Record<string, string>,
  steps: Record<string, Record<string, string>>,
) {
  return Object.fromEntries(
    Object.entries(action.outputs).map(([name, output]) => [
      name,
      expand(output.value, inputs, steps),
    ]),
  );
}

const INPUTS = {
  workflow: "examples/triage.yaml",
  agent: `${process.execPath} ${UWF_MOCK_BIN} --scenario ${TRIAGE_SCENARIO}`,
  count: "2",
};

describe("the GitHub Action (action.yml) on a simulated runner", () => {
  it("starts the event's thread, runs it, and sets thread and status; a re-run finds the same thread", () => {
    const first = runAction({ name: "issues", path: ISSUE_OPENED }, INPUTS);
    expect(first.code, first.log).toBe(0);
    expect(first.outputs).toEqual({
      thread: expect.stringMatching(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/),
      status: "completed",
      started: "true",
    });
    expect(first.log).toContain("✓ #2 responder → drafted");

    // The job re-run with the same event (and the store kept): the same thread, not a new one.
    const rerun = runAction({ name: "issues", path: ISSUE_OPENED }, INPUTS);
    expect(rerun.code, rerun.log).toBe(0);
    expect(rerun.outputs).toEqual({ ...first.outputs, started: "false" });
    expect(rerun.log).toContain(`thread ${first.outputs.thread} was already started by this event`);
  });

  it("fails the step with uwf's exit code on an event the workflow does not declare", () => {
    const push = join(temp.home, "push.json");
    writeFileSync(
      push,
      JSON.stringify({ ref: "refs/heads/main", repository: { full_name: "o/r" } }),
    );
    const refused = runAction({ name: "push", path: push }, INPUTS);
    expect(refused.code).toBe(2);
    expect(refused.outputs).toEqual({ thread: "", status: "", started: "" });
    expect(refused.log).toContain(
      '::error title=uwf::uwf thread start: workflow "triage" is not started by the GitHub event push: it declares issues.opened (Nothing was started.',
    );
  });
});
