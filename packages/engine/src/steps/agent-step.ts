import { basename } from "node:path";
import {
  ADAPTER_TRANSIENT_EXIT,
  type GuidanceNote,
  type RolePayload,
  STEP_STORE_ENV,
  type ThreadPointer,
} from "@united-workforce/protocol";
import {
  type Lease,
  processIdentity,
  type ResolvedAgent,
  type RetryPolicy,
  resolveAgent,
  retryPolicy,
  type ServedStepStore,
  serveStepStore,
} from "@united-workforce/store";
import {
  findExecutable,
  isoTime,
  isUwfError,
  sanitizeTerminalText,
  sleepUnlessAborted,
  UwfError,
} from "@united-workforce/util";
import { readHomeDotenv } from "../env/dotenv.js";
import { type AdapterOutcome, runAdapter } from "../processes/spawn-adapter.js";
import { recordedGuidance } from "../threads/steer.js";
import { adapterArgv } from "./adapter-argv.js";
import { type RunContext, startStep } from "./context.js";
import type { AgentStepOutcome, StepOutcome } from "./outcome.js";
import type { PlannedStep } from "./planned-step.js";
import { StepCheck, StepRejected, type VerifiedStep } from "./verify-step.js";

/** Used when an agent has no `timeoutSeconds`: a hung adapter must not hold a thread forever. */
export const DEFAULT_TIMEOUT_SECONDS = 1800;

/**
 * Run a role's agent for one step: spawn its adapter (no shell, its own process group), check
 * the step it stores, and retry a transient failure (adapter exit 75) after a growing wait.
 * Never moves the head: the outcome says what the step came to.
 */
export async function runAgentStep(
  run: RunContext,
  pointer: ThreadPointer,
  plan: PlannedStep,
  role: RolePayload,
  options: { agentFlag?: string | undefined; lease: Lease },
): Promise<AgentStepOutcome> {
  const agent = await chooseAgent(run, pointer, plan.role, options.agentFlag);
  // An agent chosen with --agent is remembered: the next exec, resume or poke needs no flag.
  // It is stored with the step's outcome (one pointer write per step, not two).
  const remember =
    agent.source === "flag" && pointer.agent !== agent.choice
      ? { rememberAgent: agent.choice }
      : {};
  const label = agent.alias ?? commandLabel(agent.command, agent.args);
  const { cwd, startedAtMs } = startStep(run, pointer, plan, label);
  const outcome = await spawnAgent(run, pointer, plan, role, {
    agent,
    label,
    cwd,
    startedAtMs,
    lease: options.lease,
  });
  return { ...outcome, ...remember };
}

/** The agent a step runs, as its events and messages name it, and where and since when. */
interface AgentRun {
  agent: ResolvedAgent;
  label: string;
  cwd: string;
  startedAtMs: number;
  lease: Lease;
}

/**
 * Spawn the agent's adapter (again while it fails transiently) and check the step it stored;
 * how it ended is the step's outcome.
 */
async function spawnAgent(
  run: RunContext,
  pointer: ThreadPointer,
  plan: PlannedStep,
  role: RolePayload,
  step: AgentRun,
): Promise<StepOutcome> {
  const { agent, label, cwd, lease } = step;
  const timeoutSeconds = agent.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  // A store that is not this machine's files is served to the adapter through this process's
  // connection (docs/decisions/step-store.md): the adapter opens none of its own.
  let served: ServedStepStore | null = null;
  try {
    if (run.store.kind !== "fs") served = await serveStepStore(run.store, pointer);
    // Never one inherited from a uwf that runs this one: only this step's.
    const env = { ...adapterEnv(run, agent), [STEP_STORE_ENV]: served?.path };
    const invocation = adapterArgv(agent, pointer.thread, plan);
    const check = new StepCheck(run.store.cas, {
      prev: plan.prev,
      start: pointer.start,
      role: plan.role,
      schema: role.frontmatter,
    });
    const spawn = (): Promise<AdapterOutcome> => {
      check.forget();
      return runAdapter({
        command: agent.command,
        args: invocation.args,
        ...(invocation.stdin !== null ? { stdin: invocation.stdin } : {}),
        cwd,
        env,
        timeoutMs: timeoutSeconds * 1000,
        signal: run.signal,
        onStderr: (chunk) => childOutput(run, pointer.thread, plan.role, chunk),
        onSpawn: (pid) => lease.setChild({ ...processIdentity(pid), pgid: pid }),
        onResultLine: (line) => void check.begin(line),
      });
    };
    const retried = await withRetries(run, pointer.thread, plan.role, spawn);
    // The lease keeps naming the adapter, which has exited: the next step's spawn or the
    // release replaces it, and every reader checks the child by identity (pid + start time)
    // before signalling it. Clearing it here cost a lease rewrite (a rename) per step.
    const { outcome } = retried;
    if (outcome.aborted) return { kind: "aborted" };
    const failed = (message: string, retryAfter?: string): StepOutcome => ({
      kind: "failed",
      failure: agentFailure(message, outcome.stderrTail),
      ...(retryAfter === undefined ? {} : { retryAfter }),
    });
    const who = `agent "${label}" for role "${plan.role}"`;
    if (retried.retryAfter !== null) {
      const tries = retried.tries === 1 ? "once" : `${retried.tries} times`;
      return failed(
        `${who} failed transiently ${tries}; the step may run again after ${retried.retryAfter}`,
        retried.retryAfter,
      );
    }
    if (outcome.timedOut)
      return failed(`${who} timed out after ${timeoutSeconds} s and was stopped`);
    if (outcome.exitCode !== 0) {
      const how = outcome.signal
        ? `was killed by ${outcome.signal}`
        : `exited with code ${outcome.exitCode}`;
      return failed(`${who} ${how}`);
    }
    const verified = await check.result(outcome.lastLine);
    const live = await liveGuidance(run.store.cas, outcome.lastLine, verified);
    return {
      kind: "stored",
      verified,
      agent: label,
      startedAtMs: step.startedAtMs,
      ...(live.length > 0 ? { liveGuidance: live } : {}),
    };
  } catch (error) {
    await lease.setChild(null).catch(() => {});
    if (error instanceof StepRejected) {
      return { kind: "failed", failure: agentFailure(error.message, "") };
    }
    if (isUwfError(error) && error.code === "AGENT_FAILED")
      return { kind: "failed", failure: error };
    throw error;
  } finally {
    served?.close();
  }
}

/**
 * The guidance notes the agent got while it ran, as the step's detail records them: read only
 * when the adapter's result line says there are some (`guidance`: their revisions).
 */
async function liveGuidance(
  cas: RunContext["store"]["cas"],
  resultLine: string,
  verified: VerifiedStep,
): Promise<GuidanceNote[]> {
  const listed = (JSON.parse(resultLine) as { guidance?: unknown }).guidance;
  if (!Array.isArray(listed) || listed.length === 0) return [];
  const detail = await cas.get(verified.payload.detail);
  return recordedGuidance(detail.payload).map(({ text, at, rev }) => ({ text, at, rev }));
}

/**
 * Run the adapter, and again while it fails transiently (adapter exit 75: rate limit, 5xx),
 * after a growing wait, up to `retry.maxRetries` times; then (or when the wait asked for is past
 * `maxDelaySeconds`) the step may run again at `retryAfter`.
 */
async function withRetries(
  run: RunContext,
  thread: string,
  role: string,
  spawn: () => Promise<AdapterOutcome>,
): Promise<{ outcome: AdapterOutcome; retryAfter: string | null; tries: number }> {
  const retry = retryPolicy(await run.config());
  let outcome = await spawn();
  for (let retried = 0; isTransient(outcome); retried++) {
    const asked = requestedWaitMs(outcome.stderrTail);
    const waitMs = Math.max(backoffMs(retry, retried), asked ?? 0);
    if (retried >= retry.maxRetries || waitMs > retry.maxDelaySeconds * 1000) {
      return { outcome, retryAfter: isoTime(Date.now() + waitMs), tries: retried + 1 };
    }
    run.events.emit("step.retry", {
      thread,
      role,
      retry: retried + 1,
      maxRetries: retry.maxRetries,
      delayMs: waitMs,
      reason: lastLine(outcome.stderrTail),
    });
    await (run.sleep ?? sleepUnlessAborted)(waitMs, run.signal);
    if (run.signal.aborted)
      return { outcome: { ...outcome, aborted: true }, retryAfter: null, tries: retried + 1 };
    outcome = await spawn();
  }
  return { outcome, retryAfter: null, tries: 0 };
}

/**
 * A step's child (adapter or script) wrote to stderr: each line is an event, so progress shows
 * it and a second terminal (`thread watch`) or the web view follows it through the process log.
 */
export function childOutput(run: RunContext, thread: string, role: string, chunk: string): void {
  const text = chunk.endsWith("\n") ? chunk.slice(0, -1) : chunk;
  for (const line of text.split("\n")) run.events.emit("adapter.output", { thread, role, line });
}

/**
 * The agent for a role: `--agent`, else the one the thread remembers, else config.yaml. A
 * relative command path in `--agent` means the caller's directory; a bare command is looked
 * up on PATH.
 */
export async function chooseAgent(
  run: RunContext,
  pointer: ThreadPointer,
  role: string,
  flag: string | undefined,
): Promise<ResolvedAgent> {
  // A pointer remembering anything but a command line reads as corrupt (its schema says so).
  const remembered = pointer.agent;
  const pathEnv = run.env.PATH ?? "";
  const agent = resolveAgent(await run.config(), {
    flag,
    remembered,
    workflow: pointer.workflow,
    role,
    callerCwd: run.cwd,
    isRunnable: (command) => findExecutable(command, pathEnv, pointer.cwd) !== null,
  });
  if (!agent) {
    throw new UwfError("AGENT_UNKNOWN", `no agent is configured for role "${role}"`, {
      hint: 'Set `defaultAgent` (and `agents`) in $UWF_HOME/config.yaml, or pass --agent (e.g. --agent uwf-claude-code, or --agent "uwf-mock --scenario s.yaml").',
    });
  }
  return agent;
}

/** uwf's environment over `.env`, then the agent's own `env:` from config.yaml. */
function adapterEnv(run: RunContext, agent: ResolvedAgent): Record<string, string | undefined> {
  return {
    ...readHomeDotenv(run.store.home),
    ...run.env,
    ...agent.env,
    UWF_HOME: run.store.home,
  };
}

const INTERPRETERS = new Set(["node", "bun", "deno", "python", "python3", "sh", "bash"]);

/** A short name for an agent given as a command line: `node …/uwf-mock.js` reads `uwf-mock`. */
export function commandLabel(command: string, args: readonly string[]): string {
  const name = basename(command);
  const script = args[0];
  if (INTERPRETERS.has(name) && script !== undefined && !script.startsWith("-")) {
    return basename(script).replace(/\.[cm]?[jt]s$|\.py$|\.sh$/, "");
  }
  return name;
}

/** An adapter that exited 75 (EX_TEMPFAIL) says its agent failed in a way that may pass. */
function isTransient(outcome: AdapterOutcome): boolean {
  return !outcome.aborted && !outcome.timedOut && outcome.exitCode === ADAPTER_TRANSIENT_EXIT;
}

/** The wait before retry `retried + 1`: `delaySeconds` doubled per retry, at most the cap. */
export function backoffMs(policy: RetryPolicy, retried: number): number {
  return Math.min(policy.delaySeconds * 2 ** retried, policy.maxDelaySeconds) * 1000;
}

/** The wait an adapter asked for with a `retry-after: <seconds>` line on stderr, or null. */
export function requestedWaitMs(stderrTail: string): number | null {
  const found = [...stderrTail.matchAll(/^retry-after: *(\d+(?:\.\d+)?) *s?$/gim)].at(-1);
  return found ? Number(found[1]) * 1000 : null;
}

function lastLine(text: string): string {
  const lines = sanitizeTerminalText(text)
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !/^retry-after:/i.test(line));
  return lines.at(-1) ?? "";
}

/** A failed agent's reason, with the end of what it wrote on stderr. */
function agentFailure(message: string, stderrTail: string): UwfError {
  const tail = sanitizeTerminalText(stderrTail).trim();
  return new UwfError(
    "AGENT_FAILED",
    tail ? `${message}\n--- adapter stderr (tail) ---\n${tail}` : message,
  );
}
