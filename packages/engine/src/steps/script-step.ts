import {
  isPlainObject,
  type RolePayload,
  STATUS_FIELD,
  type StartPayload,
  type ThreadPointer,
} from "@united-workforce/protocol";
import { type Lease, processIdentity } from "@united-workforce/store";
import {
  findExecutable,
  isUwfError,
  sanitizeTerminalText,
  shellQuote,
  UwfError,
} from "@united-workforce/util";
import { parse as parseYaml } from "yaml";
import { readHomeDotenv } from "../env/dotenv.js";
import { runAdapter } from "../processes/spawn-adapter.js";
import { childOutput, DEFAULT_TIMEOUT_SECONDS } from "./agent-step.js";
import {
  isLiteralLocation,
  leavesThread,
  RENDERED_LOCATION_HINT,
  type RunContext,
  startStep,
} from "./context.js";
import { outputProblems, storeDirectStep } from "./direct-step.js";
import type { StepOutcome } from "./outcome.js";
import type { PlannedStep } from "./planned-step.js";

/** The `agent` recorded on the steps of a role with `run`. */
export const SCRIPT_AGENT = "script";

/** How much of a script's stdout is read as its result; a longer one is only a tail. */
const STDOUT_LIMIT = 256 * 1024;
/** How much of stdout and stderr a step's detail keeps. */
const TAIL = 4000;

/** The argv a role's `run` spawns: its list as is, or `/bin/sh -c <string>` with `shell: true`. */
export function scriptArgv(role: RolePayload): string[] {
  const run = role.run;
  if (typeof run === "string") return ["/bin/sh", "-c", run];
  return [...(run ?? [])];
}

/** A script role's command: the argv spawned, and how messages show it. */
interface Script {
  argv: string[];
  /** The `run` string as written, or the argv quoted for a shell. */
  shown: string;
}

/** How a script ended that can give a result: it exited with a code. */
interface ScriptExit {
  exitCode: number;
  stdout: string;
  /** `stdout` is only the end of a longer output: not read as a result. */
  stdoutTruncated: boolean;
  stderrTail: string;
  /** The end of stdout and stderr together, for messages and the step's body. */
  tail: string;
}

/**
 * Run a script role's command like an adapter (no shell unless the role asks for one, its own
 * process group, a timeout, bounded output) and make its result the step's output: stdout as
 * a JSON object or frontmatter markdown when it is one, else `$status` from the exit code by
 * the role's `exitStatus`. The output must pass the role's schema before anything is written.
 */
export async function runScriptStep(
  run: RunContext,
  pointer: ThreadPointer,
  plan: PlannedStep,
  role: RolePayload,
  options: { lease: Lease },
): Promise<StepOutcome> {
  const { cwd, startedAtMs } = startStep(run, pointer, plan, SCRIPT_AGENT);
  const unsafe = await locationOutside(run, pointer, plan, cwd);
  if (unsafe !== null) return { kind: "failed", failure: unsafe };
  const argv = scriptArgv(role);
  const script: Script = {
    argv,
    shown: typeof role.run === "string" ? role.run : argv.map((a) => shellQuote(a)).join(" "),
  };
  const assembledPrompt = `$ ${script.shown}\n\n${plan.prompt}`;
  const recorded = (await run.recordedScript?.(plan.role, assembledPrompt)) ?? null;
  // One the workflow's schema no longer takes runs again, as an edited command does.
  const replayable =
    recorded !== null &&
    (await outputProblems(run.store.cas, role.frontmatter, recorded.output)).length === 0;
  if (recorded !== null && replayable) {
    // A replay: the recorded result, so the steps after it get the prompts they got then.
    const verified = await storeDirectStep(run.store.cas, pointer, plan, role.frontmatter, {
      agent: SCRIPT_AGENT,
      output: recorded.output,
      body: recorded.body,
      assembledPrompt,
      cwd,
      detail: { command: argv, replayedFrom: recorded.from },
      startedAtMs,
    });
    return { kind: "stored", verified, agent: SCRIPT_AGENT, startedAtMs };
  }
  const exit = await spawnScript(run, pointer, plan, role, script, { cwd, lease: options.lease });
  if ("kind" in exit) return exit;
  const result = await scriptResult(run, plan, role, script, exit);
  if ("kind" in result) return result;
  const stdoutTail = exit.stdout.slice(-TAIL);
  const verified = await storeDirectStep(run.store.cas, pointer, plan, role.frontmatter, {
    agent: SCRIPT_AGENT,
    output: result.output,
    body: result.body,
    assembledPrompt,
    cwd,
    detail: {
      command: argv,
      shell: typeof role.run === "string",
      exitCode: exit.exitCode,
      rawOutput: stdoutTail,
      stdoutTail,
      stderrTail: exit.stderrTail.slice(-TAIL),
    },
    startedAtMs,
  });
  return { kind: "stored", verified, agent: SCRIPT_AGENT, startedAtMs };
}

/**
 * Why a command may not run in `cwd`, or null when it may: a location rendered from the
 * thread's inputs or a step's output that leads out of the thread's directory (see
 * `leavesThread`); one the workflow writes literally is its own choice.
 */
async function locationOutside(
  run: RunContext,
  pointer: ThreadPointer,
  plan: PlannedStep,
  cwd: string,
): Promise<UwfError | null> {
  if (plan.location === null) return null;
  const workflow = await run.router.workflow(pointer.workflowHash);
  if (isLiteralLocation(workflow, plan.role, plan.location)) return null;
  const outside = leavesThread(pointer.cwd, cwd);
  if (outside === null) return null;
  return new UwfError(
    "PATH_UNSAFE",
    `role "${plan.role}" runs a command, and its location ${JSON.stringify(plan.location)}, rendered from the thread's inputs or a step's output, leads out of the thread's directory ${pointer.cwd} (to ${outside}): the command was not run`,
    { hint: RENDERED_LOCATION_HINT },
  );
}

/**
 * Spawn the command with the thread's variables in its environment and wait for it to exit.
 * A command not found, a timeout or a kill fails the step; an interrupted run aborts it.
 */
async function spawnScript(
  run: RunContext,
  pointer: ThreadPointer,
  plan: PlannedStep,
  role: RolePayload,
  script: Script,
  options: { cwd: string; lease: Lease },
): Promise<ScriptExit | StepOutcome> {
  const { cwd, lease } = options;
  const [command, ...args] = script.argv as [string, ...string[]];
  const env = await scriptEnv(run, pointer, plan);
  if (findExecutable(command, env.PATH ?? "", cwd) === null) {
    return scriptFailed(
      `command "${command}" of role "${plan.role}" was not found in PATH (run: ${script.shown}). Install it or give its path.`,
    );
  }
  const timeoutSeconds = role.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  let outcome: Awaited<ReturnType<typeof runAdapter>>;
  try {
    outcome = await runAdapter({
      command,
      args,
      cwd,
      env,
      timeoutMs: timeoutSeconds * 1000,
      signal: run.signal,
      keepStdout: STDOUT_LIMIT,
      onStderr: (chunk) => childOutput(run, pointer.thread, plan.role, chunk),
      onSpawn: (pid) => lease.setChild({ ...processIdentity(pid), pgid: pid }),
    });
  } catch (error) {
    await lease.setChild(null).catch(() => {});
    if (isUwfError(error) && error.code === "AGENT_FAILED") return scriptFailed(error.message);
    throw error;
  }
  if (outcome.aborted) return { kind: "aborted" };
  const tail = combinedTail(outcome.stdout, outcome.stderrTail);
  if (outcome.timedOut) {
    return scriptFailed(
      `command of role "${plan.role}" timed out after ${timeoutSeconds} s and was stopped (run: ${script.shown})`,
      tail,
    );
  }
  if (outcome.signal !== null || outcome.exitCode === null) {
    return scriptFailed(
      `command of role "${plan.role}" was killed by ${outcome.signal ?? "a signal"} (run: ${script.shown})`,
      tail,
    );
  }
  return {
    exitCode: outcome.exitCode,
    stdout: outcome.stdout,
    stdoutTruncated: outcome.stdoutTruncated,
    stderrTail: outcome.stderrTail,
    tail,
  };
}

/** A script's environment: the home's `.env`, the run's, and what it is running for. */
async function scriptEnv(
  run: RunContext,
  pointer: ThreadPointer,
  plan: PlannedStep,
): Promise<Record<string, string | undefined>> {
  return {
    ...readHomeDotenv(run.store.home),
    ...run.env,
    UWF_HOME: run.store.home,
    UWF_THREAD: pointer.thread,
    UWF_ROLE: plan.role,
    UWF_PROMPT: plan.prompt,
    // The thread's task: a fan-out child's item is there (its edge prompt is a fixed text).
    UWF_TASK: (await run.store.cas.getPayload<StartPayload>(pointer.start, "start")).prompt,
  };
}

/**
 * The step's output and body from how the script exited: what it printed as a result, with
 * `$status` from the exit code when it printed none, checked against the role's schema.
 */
async function scriptResult(
  run: RunContext,
  plan: PlannedStep,
  role: RolePayload,
  script: Script,
  exit: ScriptExit,
): Promise<{ output: Record<string, unknown>; body: string } | StepOutcome> {
  const { exitCode, tail } = exit;
  const parsed = exit.stdoutTruncated ? null : parseResult(exit.stdout);
  const mapped = role.exitStatus?.[String(exitCode)] ?? role.exitStatus?.default;
  const output: Record<string, unknown> = { ...(parsed?.output ?? {}) };
  if (typeof output[STATUS_FIELD] !== "string") {
    if (mapped === undefined) {
      return scriptFailed(
        `command of role "${plan.role}" exited with code ${exitCode} and gave no "$status": print it (JSON or frontmatter) or map the code under "exitStatus" (run: ${script.shown})`,
        tail,
      );
    }
    output[STATUS_FIELD] = mapped;
  }
  const reordered = { [STATUS_FIELD]: output[STATUS_FIELD], ...output };
  const problems = await outputProblems(run.store.cas, role.frontmatter, reordered);
  if (problems.length > 0) {
    return scriptFailed(
      `the result of role "${plan.role}"'s command fails its schema: ${problems.join("; ")} (exit code ${exitCode}, output ${JSON.stringify(reordered)})`,
      tail,
    );
  }
  const body =
    parsed?.body ??
    [
      `\`${script.shown}\` exited with code ${exitCode}.`,
      ...(tail ? ["", "```text", tail, "```"] : []),
    ].join("\n");
  return { output: reordered, body };
}

/** The step failed: `message`, with the end of what the command printed. */
function scriptFailed(message: string, tail = ""): StepOutcome {
  const text = sanitizeTerminalText(tail).trim();
  return {
    kind: "failed",
    failure: new UwfError(
      "AGENT_FAILED",
      text ? `${message}\n--- command output (tail) ---\n${text}` : message,
      {
        hint: `Fix the command or the role's "run" / "exitStatus" in the workflow, then retry the step.`,
      },
    ),
  };
}

/**
 * A script's stdout as a result: a JSON object, or markdown whose YAML frontmatter is a
 * mapping (the rest is the body). Anything else is not a result (null).
 */
export function parseResult(
  stdout: string,
): { output: Record<string, unknown>; body: string } | null {
  const text = stdout.trim();
  if (text.startsWith("{")) {
    try {
      const value = JSON.parse(text) as unknown;
      return isPlainObject(value) ? { output: value, body: "" } : null;
    } catch {
      return null;
    }
  }
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n([\s\S]*))?$/.exec(text);
  if (!match) return null;
  try {
    const value = parseYaml(match[1]!) as unknown;
    return isPlainObject(value) ? { output: value, body: (match[2] ?? "").trim() } : null;
  } catch {
    return null;
  }
}

function combinedTail(stdout: string, stderrTail: string): string {
  const parts = [stdout.trimEnd(), stderrTail.trimEnd()].filter((p) => p !== "");
  return parts.join("\n").slice(-TAIL);
}
