import { basename, resolve } from "node:path";
import {
  ADAPTER_TRANSIENT_EXIT,
  addUsage,
  type ExecStepResult,
  emptyUsage,
  type RolePayload,
  START,
  type StartPayload,
  type StepPayload,
  type StoppedBecause,
  type SuspendInfo,
  type ThreadExecDocument,
  type ThreadPointer,
  type ThreadStatus,
  type Usage,
  type WorkflowPayload,
} from "@united-workforce/protocol";
import {
  type Lease,
  processIdentity,
  type ResolvedAgent,
  type RetryPolicy,
  resolveAgent,
  retryPolicy,
  type Store,
  type UwfConfig,
} from "@united-workforce/store";
import {
  type EventStream,
  errorMessage,
  isoTime,
  isUwfError,
  sanitizeTerminalText,
  UwfError,
} from "@united-workforce/util";
import { readHomeDotenv } from "../env/dotenv.js";
import { evaluate, startOutput, type Transition } from "../moderator/evaluate.js";
import { expectedRole, type RoutedFrom } from "../moderator/expected-role.js";
import { costKnown } from "../usage/total.js";
import { adapterArgv } from "./adapter-argv.js";
import { cancelledHint } from "./cancelled-hint.js";
import type { FanoutReport } from "./fanout.js";
import { guardReached } from "./guards.js";
import { humanSuspension, isHumanRole } from "./human-answer.js";
import { runScriptStep } from "./script-step.js";
import { type AdapterOutcome, findExecutable, runAdapter } from "./spawn-adapter.js";
import { StepCheck, StepRejected, type VerifiedStep } from "./verify-step.js";

/** The `agent` recorded on the steps of a role with `run`. */
export const SCRIPT_AGENT = "script";

/** What running one step did: the pointer after it, and the step stored (null if none). */
export interface StepRun {
  pointer: ThreadPointer;
  step: ExecStepResult | null;
  /** The new step's usage (for budgets); null when no step was stored. */
  usage: Usage | null;
  failure: UwfError | null;
  aborted: boolean;
}

/** Used when an agent has no `timeoutSeconds`: a hung adapter must not hold a thread forever. */
export const DEFAULT_TIMEOUT_SECONDS = 1800;

export interface EngineContext {
  store: Store;
  /** The caller's directory: a relative command path in `--agent` resolves against it. */
  cwd: string;
  /** config.yaml, asked for only when a step runs (a bad agent key must not stop `show`). */
  config(): UwfConfig | Promise<UwfConfig>;
  /** The environment adapters start with (`.env` is added under it); also gives PATH. */
  env: Record<string, string | undefined>;
  /** Where the engine's events go: the process log, and whatever else the caller subscribed. */
  events: EventStream;
  signal: AbortSignal;
  /** How the engine waits between retries (tests pass one that records and returns). */
  sleep?(ms: number, signal: AbortSignal): Promise<void>;
}

/** What runs next: a role with its prompt, where the new step links, and how it was chosen. */
export interface PlannedStep {
  role: string;
  prompt: string;
  location: string | null;
  prev: string | null;
  /** Poke: the new step replaces the head instead of following it. */
  replaceHead: boolean;
}

/** What a new step's `prev` is when it follows the head: null while the head is the StartNode. */
export function prevOf(pointer: ThreadPointer): string | null {
  return pointer.head === pointer.start ? null : pointer.head;
}

export class Engine {
  readonly store: Store;
  private readonly workflows = new Map<string, WorkflowPayload>();
  // Inputs by StartNode hash; read only for workflows that declare inputs.
  private readonly inputs = new Map<string, Record<string, unknown>>();
  // The step this engine last verified, with its output: routing from it needs no CAS read.
  // Nodes are immutable, so a hash names the same step for the life of the process.
  private knownHead: { hash: string; step: StepPayload; output: Record<string, unknown> } | null =
    null;

  constructor(readonly ctx: EngineContext) {
    this.store = ctx.store;
  }

  async workflow(hash: string): Promise<WorkflowPayload> {
    let payload = this.workflows.get(hash);
    if (!payload) {
      payload = await this.store.cas.getPayload<WorkflowPayload>(hash, "workflow");
      this.workflows.set(hash, payload);
    }
    return payload;
  }

  /** The head step, or null while the head is the StartNode. Reads one node, never the chain. */
  async headStep(pointer: ThreadPointer): Promise<StepPayload | null> {
    if (pointer.head === pointer.start) return null;
    if (pointer.head === this.knownHead?.hash) return this.knownHead.step;
    return this.store.cas.getPayload<StepPayload>(pointer.head, "step");
  }

  /**
   * Moderator input from the head: zero LLM cost, two node reads at most (three, once per
   * process, for a workflow that declares inputs: they are in the StartNode).
   */
  async route(pointer: ThreadPointer, startKind: "new" | "resume" = "new"): Promise<Transition> {
    const workflow = await this.workflow(pointer.workflowHash);
    const inputs = await this.threadInputs(pointer, workflow);
    const head = await this.headStep(pointer);
    if (!head || startKind === "resume")
      return evaluate(workflow.graph, START, startOutput(startKind), inputs);
    const output =
      pointer.head === this.knownHead?.hash
        ? this.knownHead.output
        : await this.store.cas.getPayload<Record<string, unknown>>(head.output);
    return evaluate(workflow.graph, head.role, output, inputs);
  }

  /**
   * Why the moderator would not send the thread to `plan.role` after `plan.prev` (the route
   * problem `thread verify` would report for that step: `"b" answered "again", which leads to
   * "a"`), or null when it would. Reads `prev`'s step and output, never the chain.
   */
  async routeProblem(
    pointer: ThreadPointer,
    plan: Pick<PlannedStep, "role" | "prev">,
  ): Promise<string | null> {
    const workflow = await this.workflow(pointer.workflowHash);
    const inputs = await this.threadInputs(pointer, workflow);
    let previous: RoutedFrom | null = null;
    if (plan.prev !== null) {
      const known = plan.prev === this.knownHead?.hash ? this.knownHead : null;
      const step = known?.step ?? (await this.store.cas.getPayload<StepPayload>(plan.prev, "step"));
      const output =
        known?.output ?? (await this.store.cas.getPayload<Record<string, unknown>>(step.output));
      previous = { role: step.role, output };
    }
    const expected = expectedRole(workflow.graph, previous, inputs);
    if (expected.role === null || expected.role === plan.role) return null;
    return expected.why;
  }

  /** The thread's inputs when its workflow declares some (`{}` from a StartNode without). */
  private async threadInputs(
    pointer: ThreadPointer,
    workflow: WorkflowPayload,
  ): Promise<Record<string, unknown> | undefined> {
    if (workflow.inputs === undefined) return undefined;
    let inputs = this.inputs.get(pointer.start);
    if (inputs === undefined) {
      const start = await this.store.cas.getPayload<StartPayload>(pointer.start, "start");
      inputs = start.inputs ?? {};
      this.inputs.set(pointer.start, inputs);
    }
    return inputs;
  }

  /**
   * Run one step: spawn the adapter, verify what it returns, then move the head. Any failure
   * leaves the head where it was and suspends the thread with the reason.
   */
  async runStep(
    from: ThreadPointer,
    plan: PlannedStep,
    options: { agentFlag?: string | undefined; lease: Lease },
  ): Promise<StepRun> {
    const workflow = await this.workflow(from.workflowHash);
    const role = workflow.roles[plan.role];
    if (!role) {
      throw new UwfError(
        "WORKFLOW_INVALID",
        `workflow "${workflow.name}" has no role "${plan.role}"`,
      );
    }
    if (role.join === true) {
      throw new UwfError(
        "THREAD_STATE",
        `role "${plan.role}" is a join: uwf writes its step when the fan-out's children have ended`,
        { hint: `Run the fan-out with: uwf thread exec ${from.thread}` },
      );
    }
    if (isHumanRole(role) && plan.replaceHead) {
      throw new UwfError(
        "THREAD_STATE",
        `role "${plan.role}" is answered by a human: poke re-runs agents and commands`,
        {
          hint: `To answer it differently, fork the step before it (uwf step fork <step>) and answer on the new thread.`,
        },
      );
    }
    if (isHumanRole(role)) {
      // Nothing runs: the thread waits for `uwf thread answer`.
      const waiting = await this.suspend(
        from,
        await humanSuspension(this, from, plan.role, plan.prompt, plan.location),
      );
      await this.announce(waiting);
      return { pointer: waiting, step: null, usage: null, failure: null, aborted: false };
    }
    if (role.run !== undefined) return this.runScript(from, plan, role, options.lease);
    const agent = await this.chooseAgent(from, plan.role, options.agentFlag);
    // An agent chosen with --agent is remembered: the next exec, resume or poke needs no flag.
    // It is stored with the step's outcome (one pointer write per step, not two); an
    // interrupted step stores it on its own below.
    const remember = agent.source === "flag" && from.agent !== agent.choice;
    const pointer = remember ? { ...from, agent: agent.choice } : from;
    const agentLabel = agent.alias ?? commandLabel(agent.command, agent.args);
    const cwd = this.cwdOf(pointer, plan.location);
    const started = Date.now();
    const stepNumber = plan.replaceHead ? pointer.steps : pointer.steps + 1;
    this.ctx.events.emit("step.start", {
      thread: pointer.thread,
      role: plan.role,
      agent: agentLabel,
      stepNumber,
      cwd,
    });

    let failure: UwfError;
    let retryAfter: string | null = null;
    try {
      const invocation = adapterArgv(agent, pointer.thread, plan);
      const retry = retryPolicy(await this.ctx.config());
      const check = new StepCheck(this.store.cas, {
        prev: plan.prev,
        start: pointer.start,
        role: plan.role,
        schema: role.frontmatter,
      });
      const spawnAdapter = () => {
        check.forget();
        return runAdapter({
          command: agent.command,
          args: invocation.args,
          ...(invocation.stdin !== null ? { stdin: invocation.stdin } : {}),
          cwd,
          env: this.adapterEnv(agent),
          timeoutMs: (agent.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
          signal: this.ctx.signal,
          onStderr: (chunk) => this.childOutput(pointer.thread, plan.role, chunk),
          onSpawn: (pid) => options.lease.setChild({ ...processIdentity(pid), pgid: pid }),
          onResultLine: (line) => void check.begin(line),
        });
      };
      let outcome = await spawnAdapter();
      let transient: UwfError | null = null;
      // A transient failure (adapter exit 75: rate limit, 5xx) runs the step again after a
      // growing wait, up to `retry.maxRetries` times; then the thread waits for its retry time.
      for (let retried = 0; isTransient(outcome); retried++) {
        const asked = requestedWaitMs(outcome.stderrTail);
        const waitMs = Math.max(backoffMs(retry, retried), asked ?? 0);
        const reason = lastLine(outcome.stderrTail);
        if (retried >= retry.maxRetries || waitMs > retry.maxDelaySeconds * 1000) {
          retryAfter = isoTime(Date.now() + waitMs);
          const tries = retried + 1;
          transient = agentFailure(
            `agent "${agentLabel}" for role "${plan.role}" failed transiently ${tries === 1 ? "once" : `${tries} times`}; the step may run again after ${retryAfter}`,
            outcome.stderrTail,
          );
          break;
        }
        this.ctx.events.emit("step.retry", {
          thread: pointer.thread,
          role: plan.role,
          retry: retried + 1,
          maxRetries: retry.maxRetries,
          delayMs: waitMs,
          reason,
        });
        await (this.ctx.sleep ?? abortableSleep)(waitMs, this.ctx.signal);
        if (this.ctx.signal.aborted) {
          outcome = { ...outcome, aborted: true };
          break;
        }
        outcome = await spawnAdapter();
      }
      // The lease keeps naming the adapter, which has exited: the next step's spawn or the
      // release replaces it, and every reader checks the child by identity (pid + start time)
      // before signalling it. Clearing it here cost a lease rewrite (a rename) per step.
      if (outcome.aborted) {
        this.ctx.events.emit("step.aborted", { thread: pointer.thread, role: plan.role });
        return {
          pointer: remember ? await this.writeUnlessChanged(pointer) : pointer,
          step: null,
          usage: null,
          failure: null,
          aborted: true,
        };
      }
      if (transient !== null) {
        failure = transient;
      } else if (outcome.timedOut) {
        failure = agentFailure(
          `agent "${agentLabel}" for role "${plan.role}" timed out after ${agent.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS} s and was stopped`,
          outcome.stderrTail,
        );
      } else if (outcome.exitCode !== 0) {
        const how = outcome.signal
          ? `was killed by ${outcome.signal}`
          : `exited with code ${outcome.exitCode}`;
        failure = agentFailure(
          `agent "${agentLabel}" for role "${plan.role}" ${how}`,
          outcome.stderrTail,
        );
      } else {
        const verified = await check.result(outcome.lastLine);
        const done = await this.commitStep(pointer, verified, plan, agentLabel, started);
        return { ...done, failure: null, aborted: false };
      }
    } catch (error) {
      await options.lease.setChild(null).catch(() => {});
      if (error instanceof StepRejected) failure = agentFailure(error.message, "");
      else if (isUwfError(error) && error.code === "AGENT_FAILED") failure = error;
      else throw error;
    }
    const retrying = retryAfter === null ? undefined : { kind: "retry" as const, retryAfter };
    return { ...(await this.fail(pointer, plan, failure, retrying)), aborted: false };
  }

  /**
   * Move the head to a step that passed verification (or was written by the engine itself),
   * then tell listeners. Returns the new pointer, the exec summary of the step and its usage.
   */
  async commitStep(
    pointer: ThreadPointer,
    verified: VerifiedStep,
    plan: PlannedStep,
    agentLabel: string,
    started: number,
  ): Promise<{ pointer: ThreadPointer; step: ExecStepResult; usage: Usage }> {
    this.knownHead = { hash: verified.hash, step: verified.payload, output: verified.output };
    const usage = verified.payload.usage;
    const next = await this.advance(pointer, verified.hash, plan, usage);
    const durationMs = Date.now() - started;
    this.ctx.events.emit("step.done", {
      thread: pointer.thread,
      role: plan.role,
      step: verified.hash,
      status: verified.status,
      durationMs,
      usage,
      agent: agentLabel,
      stepNumber: next.steps,
    });
    const step = {
      hash: verified.hash,
      role: plan.role,
      status: verified.status,
      agent: agentLabel,
      durationMs,
    };
    await this.announce(next);
    return { pointer: next, step, usage };
  }

  /**
   * A step's child (adapter or script) wrote to stderr: each line is emitted as progress and
   * logged, so a second terminal (`thread watch`) or the web view follows a run it did not
   * start through the process log.
   */
  childOutput(thread: string, role: string, chunk: string): void {
    const text = chunk.endsWith("\n") ? chunk.slice(0, -1) : chunk;
    for (const line of text.split("\n")) {
      this.ctx.events.emit("adapter.output", { thread, role, line });
    }
  }

  /** Where a step with this edge `location` runs: relative to the thread's cwd. */
  cwdOf(pointer: ThreadPointer, location: string | null): string {
    return location ? resolve(pointer.cwd, location) : pointer.cwd;
  }

  /** A role with `run`: its command's result is the step; a crash or timeout suspends. */
  private async runScript(
    pointer: ThreadPointer,
    plan: PlannedStep,
    role: RolePayload,
    lease: Lease,
  ): Promise<StepRun> {
    const started = Date.now();
    const stepNumber = plan.replaceHead ? pointer.steps : pointer.steps + 1;
    const cwd = this.cwdOf(pointer, plan.location);
    this.ctx.events.emit("step.start", {
      thread: pointer.thread,
      role: plan.role,
      agent: SCRIPT_AGENT,
      stepNumber,
      cwd,
    });
    const outcome = await runScriptStep(this, pointer, plan, role, {
      cwd,
      env: { ...readHomeDotenv(this.store.home), ...this.ctx.env, UWF_HOME: this.store.home },
      lease,
      started,
    });
    if (outcome.kind === "aborted") {
      this.ctx.events.emit("step.aborted", { thread: pointer.thread, role: plan.role });
      return { pointer, step: null, usage: null, failure: null, aborted: true };
    }
    if (outcome.kind === "done") {
      const done = await this.commitStep(pointer, outcome.verified, plan, SCRIPT_AGENT, started);
      return { ...done, failure: null, aborted: false };
    }
    return { ...(await this.fail(pointer, plan, outcome.failure)), aborted: false };
  }

  /** Leave the head where it is and suspend the thread with a failed step's reason. */
  private async fail(
    pointer: ThreadPointer,
    plan: PlannedStep,
    failure: UwfError,
    retrying?: { kind: "retry"; retryAfter: string },
  ): Promise<{ pointer: ThreadPointer; step: null; usage: null; failure: UwfError }> {
    this.ctx.events.emit("step.failed", {
      thread: pointer.thread,
      role: plan.role,
      reason: failure.message,
    });
    const waiting = await this.suspend(pointer, {
      role: plan.role,
      reason: failure.message,
      kind: "failure",
      ...rerun(plan),
      ...retrying,
    });
    await this.announce(waiting);
    return { pointer: waiting, step: null, usage: null, failure };
  }

  /**
   * The agent for a role: `--agent`, else the one the thread remembers, else config.yaml. A
   * relative command path in `--agent` means the caller's directory; a bare command is looked
   * up on PATH.
   */
  private async chooseAgent(
    pointer: ThreadPointer,
    role: string,
    flag: string | undefined,
  ): Promise<ResolvedAgent> {
    const remembered = pointer.agent as unknown;
    if (flag === undefined && remembered !== undefined && typeof remembered !== "string") {
      throw new UwfError(
        "THREAD_CORRUPT",
        `thread ${pointer.thread} remembers an agent that is not a string (${JSON.stringify(remembered)})`,
        { hint: "Pass --agent to choose the agent again; the thread then remembers that one." },
      );
    }
    const pathEnv = this.ctx.env.PATH ?? "";
    const agent = resolveAgent(await this.ctx.config(), {
      flag,
      remembered: remembered as string | undefined,
      workflow: pointer.workflow,
      role,
      callerCwd: this.ctx.cwd,
      isRunnable: (command) => findExecutable(command, pathEnv, pointer.cwd) !== null,
    });
    if (!agent) {
      throw new UwfError("AGENT_UNKNOWN", `no agent is configured for role "${role}"`, {
        hint: 'Set `defaultAgent` (and `agents`) in $UWF_HOME/config.yaml, or pass --agent (e.g. --agent uwf-claude-code, or --agent "uwf-mock --scenario s.yaml").',
      });
    }
    return agent;
  }

  /**
   * Resolve the agent `role` would run with, as a step does, and throw what the step would
   * (an unknown agent, none configured); nothing for a role no agent runs (a human's, a
   * command's, a join).
   */
  async checkAgent(pointer: ThreadPointer, role: string, flag: string | undefined): Promise<void> {
    const payload = (await this.workflow(pointer.workflowHash)).roles[role];
    if (!payload || payload.join === true || isHumanRole(payload) || payload.run !== undefined) {
      return;
    }
    await this.chooseAgent(pointer, role, flag);
  }

  /** uwf's environment over `.env`, then the agent's own `env:` from config.yaml. */
  private adapterEnv(agent: ResolvedAgent): Record<string, string | undefined> {
    return {
      ...readHomeDotenv(this.store.home),
      ...this.ctx.env,
      ...agent.env,
      UWF_HOME: this.store.home,
    };
  }

  /**
   * The rendered prompt of the `$END` edge a completed thread took (hello's "Greeting
   * delivered: …"), or null when the head does not lead to `$END` (or cannot be routed).
   * Costs no read when this engine verified the head.
   */
  async endMessage(pointer: ThreadPointer): Promise<string | null> {
    try {
      const next = await this.route(pointer);
      return next.kind === "end" ? next.prompt : null;
    } catch {
      return null;
    }
  }

  /** Tell listeners, and the process log, when a step left the thread waiting or finished. */
  async announce(pointer: ThreadPointer): Promise<void> {
    if (pointer.status === "completed") {
      const message = await this.endMessage(pointer);
      this.ctx.events.emit("thread.completed", { thread: pointer.thread, message });
    }
    if (pointer.status === "suspended" && pointer.suspended) {
      const { role, reason, kind } = pointer.suspended;
      this.ctx.events.emit("thread.suspended", { thread: pointer.thread, role, reason, kind });
    }
  }

  /**
   * Move the head to a verified step and settle what the moderator says comes next, in one
   * pointer write: a crash leaves either the old head or the new head with its final status.
   */
  private async advance(
    pointer: ThreadPointer,
    stepHash: string,
    plan: PlannedStep,
    usage: Usage,
  ): Promise<ThreadPointer> {
    const moved: ThreadPointer = {
      ...pointer,
      usage: addUsage(pointer.usage ?? emptyUsage(), usage),
      unknownCostSteps: (pointer.unknownCostSteps ?? 0) + (costKnown(usage) ? 0 : 1),
      head: stepHash,
      steps: plan.replaceHead ? pointer.steps : pointer.steps + 1,
      currentRole: plan.role,
      status: "idle",
      suspended: null,
    };
    return this.write(await this.settled(moved));
  }

  /**
   * Record what the head leads to when it is not another role: `$END` completes the thread,
   * `$SUSPEND` waits for a human. A routing error suspends it with the reason.
   */
  async settle(pointer: ThreadPointer): Promise<ThreadPointer> {
    const settled = await this.settled(pointer);
    return settled === pointer ? pointer : this.write(settled);
  }

  /** The pointer as `settle` would store it; the same object when nothing changes. */
  private async settled(pointer: ThreadPointer): Promise<ThreadPointer> {
    let next: Transition;
    try {
      next = await this.route(pointer);
    } catch (error) {
      return suspended(pointer, {
        role: pointer.currentRole ?? START,
        reason: errorMessage(error),
        kind: "failure",
      });
    }
    if (next.kind === "end") return { ...pointer, status: "completed", suspended: null };
    if (next.kind === "suspend") {
      return suspended(pointer, {
        role: pointer.currentRole ?? START,
        reason: next.prompt,
        kind: "question",
      });
    }
    // A fan-out next: its children run at the next exec.
    if (next.kind === "fanout") return pointer;
    // A human role next: the thread waits for its answer at once, so `thread show` says so;
    // or, when a workflow guard stops the role's visit, it waits on the guard as it would
    // before an agent's step, and `thread resume` asks the human.
    const workflow = await this.workflow(pointer.workflowHash);
    if (isHumanRole(workflow.roles[next.role])) {
      const { role, prompt, location } = next;
      const plan = { role, prompt, location, prev: prevOf(pointer), replaceHead: false };
      // A chain already past maxSteps got there by a resume that lifted it for its run; the
      // step that run just took leads to this human, who is asked (a maxVisits is never
      // lifted here: a resume lifting it starts with that role's visit, which ends the run).
      const past = workflow.maxSteps !== undefined && pointer.steps > workflow.maxSteps;
      const lifted = past ? { guard: "maxSteps" as const, role } : undefined;
      const guard = await guardReached(this, pointer, plan, lifted);
      if (guard !== null) {
        return suspended(pointer, {
          role,
          reason: guard.reason,
          kind: "guard",
          guard: guard.guard,
          prompt,
          location,
        });
      }
      return suspended(
        pointer,
        await humanSuspension(this, pointer, next.role, next.prompt, next.location),
      );
    }
    return pointer;
  }

  suspend(pointer: ThreadPointer, info: SuspendInfo): Promise<ThreadPointer> {
    return this.write(suspended(pointer, info));
  }

  /**
   * A run reached its budget, or the step a workflow guard: the thread waits, before the planned step starts, for a human to
   * decide (`thread resume` runs that step). Listeners hear it like any suspension.
   */
  async suspendForBudget(
    pointer: ThreadPointer,
    plan: PlannedStep,
    reason: string,
    guard?: "maxSteps" | "maxVisits",
  ): Promise<ThreadPointer> {
    const next = await this.suspend(pointer, {
      role: plan.role,
      reason,
      kind: guard === undefined ? "budget" : "guard",
      ...rerun(plan),
      ...(guard === undefined ? {} : { guard }),
    });
    this.ctx.events.emit(guard === undefined ? "exec.budget" : "exec.guard", {
      thread: pointer.thread,
      role: plan.role,
      reason,
    });
    await this.announce(next);
    return next;
  }

  /**
   * Store a changed pointer, compare-and-swap on the revision it was read at: a pointer changed
   * meanwhile by another process (it should hold the lease to) is never overwritten.
   */
  async write(pointer: ThreadPointer): Promise<ThreadPointer> {
    const updated = { ...pointer, updatedAt: isoTime() };
    const stored = await this.store.threads.swap(updated, pointer.rev ?? 0);
    if (stored === null) {
      const now = await this.store.threads.get(pointer.thread).catch(() => null);
      if (now?.status === "cancelled") {
        throw new UwfError(
          "THREAD_CONFLICT",
          `thread ${pointer.thread} was cancelled while this exec ran; nothing more was written to it`,
          { hint: cancelledHint(now), details: { thread: pointer.thread } },
        );
      }
      throw new UwfError(
        "THREAD_CONFLICT",
        `thread ${pointer.thread} was changed by another process`,
        {
          hint: `nothing was overwritten; check it with \`uwf thread show ${pointer.thread}\` and try again`,
          details: { thread: pointer.thread },
        },
      );
    }
    return stored;
  }

  /**
   * Store a change that may be dropped (the agent an interrupted step was run with): when
   * another process changed the pointer meanwhile (`thread cancel`), its version stands.
   */
  private async writeUnlessChanged(pointer: ThreadPointer): Promise<ThreadPointer> {
    try {
      return await this.write(pointer);
    } catch (error) {
      if (isUwfError(error) && error.code === "THREAD_CONFLICT") return pointer;
      throw error;
    }
  }
}

function suspended(pointer: ThreadPointer, info: SuspendInfo): ThreadPointer {
  return { ...pointer, status: "suspended", suspended: info };
}

/**
 * What a suspension keeps of the step it stopped, so `thread resume` runs that step again:
 * its prompt and place, and, for a poke's, that it replaces the head (the head's status leads
 * elsewhere: following the head would break the route).
 */
function rerun(plan: PlannedStep): Pick<SuspendInfo, "prompt" | "location" | "replaceHead"> {
  return {
    prompt: plan.prompt,
    location: plan.location,
    ...(plan.replaceHead ? { replaceHead: true } : {}),
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

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((done) => {
    if (signal.aborted) return done();
    const timer = setTimeout(finish, ms);
    function finish(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", finish);
      done();
    }
    signal.addEventListener("abort", finish, { once: true });
  });
}

function agentFailure(message: string, stderrTail: string): UwfError {
  const tail = sanitizeTerminalText(stderrTail).trim();
  return new UwfError(
    "AGENT_FAILED",
    tail ? `${message}\n--- adapter stderr (tail) ---\n${tail}` : message,
  );
}

export interface ExecSummary {
  pointer: ThreadPointer;
  steps: ExecStepResult[];
  stoppedBecause: StoppedBecause;
  message: string;
  failure: UwfError | null;
  /** The fan-outs this run ran, with where each child stands. */
  fanouts?: FanoutReport[];
}

/** The exec document of a run, with a failure's hint and how to retry it in the message. */
export function execDocument(summary: ExecSummary, status: ThreadStatus): ThreadExecDocument {
  return {
    thread: summary.pointer.thread,
    status,
    stoppedBecause: summary.stoppedBecause,
    message: summary.failure ? failureMessage(summary, summary.failure) : summary.message,
    steps: summary.steps,
    ...(summary.fanouts === undefined ? {} : { fanouts: summary.fanouts }),
  };
}

/** A failed step's reason, what to fix (when known), and how to retry it. */
function failureMessage(summary: ExecSummary, failure: UwfError): string {
  const lines = [summary.message];
  if (failure.hint) lines.push(failure.hint);
  const id = summary.pointer.thread;
  const retryAfter = summary.pointer.suspended?.retryAfter;
  lines.push(
    retryAfter === undefined
      ? `The head did not move. To retry the step: uwf thread resume ${id}`
      : `The head did not move. To retry the step at ${retryAfter}: uwf thread exec ${id} --wait (or now: uwf thread resume ${id})`,
  );
  return lines.join("\n");
}
