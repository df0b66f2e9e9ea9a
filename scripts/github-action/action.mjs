#!/usr/bin/env node
// The steps of the uwf GitHub Action (action.yml at the repository's root), kept here rather
// than in the YAML so they are plain code a test runs (scripts/github-action/action.test.ts):
//
//   install  installs uwf from the action's checkout (`npm run install-cli`, under RUNNER_TEMP)
//            and puts its bin folder on the job's PATH ($GITHUB_PATH)
//   run      `uwf thread start <workflow> --event "$GITHUB_EVENT_PATH"` (the event's name from
//            GITHUB_EVENT_NAME), then `uwf thread exec`, and writes the outputs `thread`,
//            `started` and `status` to $GITHUB_OUTPUT
//
// Inputs come as INPUT_* variables (action.yml passes them). Exits with uwf's exit code, after
// writing every output it has, so a failed step still names its thread.
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { pinnedPnpm } from "../lib/packages.mjs";

const ACTION_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

class StepFailed extends Error {
  constructor(message, code = 1) {
    super(message);
    this.code = code;
  }
}

function env(name) {
  const value = process.env[name];
  return value === undefined || value === "" ? undefined : value;
}

function requireEnv(name) {
  const value = env(name);
  if (value === undefined)
    throw new StepFailed(
      `${name} is not set (this runs as a step of action.yml on a GitHub runner)`,
    );
  return value;
}

/** Run a command to its end with its output shown in the job's log; fail the step if it fails. */
function runShown(command, args, cwd) {
  console.log(`$ ${[command, ...args].join(" ")}`);
  const result = spawnSync(command, args, { cwd, stdio: "inherit" });
  if (result.status !== 0) throw new StepFailed(`${command} ${args[0]} failed`, result.status ?? 1);
}

function install() {
  const prefix = join(requireEnv("RUNNER_TEMP"), "uwf-cli");
  const pnpm = pinnedPnpm();
  if (!existsSync(join(ACTION_ROOT, "node_modules", ".pnpm"))) {
    runShown(pnpm[0], [...pnpm.slice(1), "install", "--frozen-lockfile"], ACTION_ROOT);
  }
  runShown(
    process.execPath,
    [join(ACTION_ROOT, "scripts", "install-cli.mjs"), "--prefix", prefix],
    ACTION_ROOT,
  );
  const bin = process.platform === "win32" ? prefix : join(prefix, "bin");
  appendFileSync(requireEnv("GITHUB_PATH"), `${bin}\n`);
}

/**
 * `uwf <args> --format json`: its document, or null with the exit code and uwf's error (its
 * message and hint, read from the JSON error it prints) when it failed.
 */
function uwfJson(args, options) {
  const result = spawnSync("uwf", [...args, "--format", "json"], { ...options, encoding: "utf8" });
  if (result.error)
    throw new StepFailed(`cannot run uwf: ${result.error.message} (did the install step run?)`);
  process.stderr.write(result.stderr);
  try {
    return { code: result.status ?? 1, doc: JSON.parse(result.stdout) };
  } catch {
    return { code: result.status ?? 1, doc: null, error: uwfError(result.stderr) };
  }
}

function uwfError(stderr) {
  try {
    const { message, hint } = JSON.parse(stderr.trim().split("\n").at(-1)).error;
    return hint ? `${message} (${hint})` : message;
  } catch {
    return stderr.trim() || "no message";
  }
}

/** `uwf <args>` with its output in the job's log as it comes (a run's progress); its exit code. */
function uwfShown(args, options) {
  const result = spawnSync("uwf", args, { ...options, stdio: ["ignore", "inherit", "inherit"] });
  if (result.error)
    throw new StepFailed(`cannot run uwf: ${result.error.message} (did the install step run?)`);
  return result.status ?? 1;
}

function setOutput(name, value) {
  appendFileSync(requireEnv("GITHUB_OUTPUT"), `${name}=${value}\n`);
  console.log(`output ${name}=${value}`);
}

function runThread() {
  const workflow = requireEnv("INPUT_WORKFLOW");
  const eventPath = requireEnv("GITHUB_EVENT_PATH");
  requireEnv("GITHUB_EVENT_NAME");
  const workspace = env("GITHUB_WORKSPACE") ?? process.cwd();
  const childEnv = { ...process.env };
  // Without a store of its own, a job's threads live under RUNNER_TEMP, for this job.
  if (env("UWF_HOME") === undefined && env("RUNNER_TEMP") !== undefined) {
    childEnv.UWF_HOME = join(env("RUNNER_TEMP"), "uwf-home");
  }
  if (env("INPUT_STORE") !== undefined) childEnv.UWF_STORE = env("INPUT_STORE");
  const options = { cwd: workspace, env: childEnv };

  const prompt = env("INPUT_PROMPT");
  const start = uwfJson(
    [
      ...["thread", "start", workflow, "--event", eventPath],
      ...["--cwd", resolve(workspace, env("INPUT_CWD") ?? ".")],
      ...(prompt === undefined ? [] : ["--prompt", prompt]),
    ],
    options,
  );
  if (start.doc === null) throw new StepFailed(`uwf thread start: ${start.error}`, start.code);
  const thread = start.doc.thread;
  setOutput("thread", thread);
  setOutput("started", String(start.doc.started !== false));

  const agent = env("INPUT_AGENT");
  const count = env("INPUT_COUNT");
  const exec = uwfShown(
    [
      ...["thread", "exec", thread],
      ...(agent === undefined ? [] : ["--agent", agent]),
      ...(count === undefined ? [] : ["--count", count]),
    ],
    options,
  );
  const show = uwfJson(["thread", "show", thread], options);
  if (show.doc !== null) setOutput("status", show.doc.status);
  if (exec !== 0)
    throw new StepFailed(`uwf thread exec ${thread} exited ${exec} (its error is above)`, exec);
}

const STEPS = { install, run: runThread };

try {
  const step = STEPS[process.argv[2]];
  if (step === undefined)
    throw new StepFailed(`usage: action.mjs ${Object.keys(STEPS).join("|")}`, 2);
  step();
} catch (error) {
  if (!(error instanceof StepFailed)) throw error;
  // A workflow command: GitHub shows it as the step's error annotation.
  console.log(`::error title=uwf::${error.message}`);
  process.exit(error.code);
}
