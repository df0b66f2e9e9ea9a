import { readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import {
  addUsage,
  type ExecStepResult,
  emptyUsage,
  START,
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
  Cas,
  type LockHandle,
  processIdentity,
  readConfig,
  resolveAgent,
  ThreadStore,
  type UwfConfig,
} from "@united-workforce/store";
import {
  errorMessage,
  isUwfError,
  type Logger,
  sanitizeTerminalText,
  UwfError,
} from "@united-workforce/util";
import { parse as parseDotenv } from "dotenv";
import { evaluate, startOutput, type Transition } from "../moderator/evaluate.js";
import { findExecutable, runAdapter } from "./spawn-adapter.js";
import { StepRejected, verifyStep } from "./verify-step.js";

/** Used when an agent has no `timeoutSeconds`: a hung adapter must not hold a thread forever. */
export const DEFAULT_TIMEOUT_SECONDS = 1800;

export interface EngineContext {
  home: string;
  env: Record<string, string | undefined>;
  logger: Logger;
  progress(text: string): void;
  signal: AbortSignal;
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
  readonly cas: Cas;
  readonly threads: ThreadStore;
  private config: UwfConfig | undefined;
  private readonly workflows = new Map<string, WorkflowPayload>();

  constructor(readonly ctx: EngineContext) {
    this.cas = Cas.open(ctx.home);
    this.threads = new ThreadStore(ctx.home);
  }

  workflow(hash: string): WorkflowPayload {
    let payload = this.workflows.get(hash);
    if (!payload) {
      payload = this.cas.getPayload<WorkflowPayload>(hash, "workflow");
      this.workflows.set(hash, payload);
    }
    return payload;
  }

  /** The head step, or null while the head is the StartNode. Reads one node, never the chain. */
  headStep(pointer: ThreadPointer): StepPayload | null {
    return pointer.head === pointer.start
      ? null
      : this.cas.getPayload<StepPayload>(pointer.head, "step");
  }

  /** Moderator input from the head: zero LLM cost, two node reads at most. */
  route(pointer: ThreadPointer, startKind: "new" | "resume" = "new"): Transition {
    const workflow = this.workflow(pointer.workflowHash);
    const head = this.headStep(pointer);
    if (!head || startKind === "resume")
      return evaluate(workflow.graph, START, startOutput(startKind));
    const output = this.cas.getPayload<Record<string, unknown>>(head.output);
    return evaluate(workflow.graph, head.role, output);
  }

  loadConfig(): UwfConfig {
    this.config ??= readConfig(this.ctx.home);
    return this.config;
  }

  /**
   * Run one step: spawn the adapter, verify what it returns, then move the head. Any failure
   * leaves the head where it was and suspends the thread with the reason.
   */
  async runStep(
    pointer: ThreadPointer,
    plan: PlannedStep,
    options: { agentFlag?: string | undefined; lock: LockHandle },
  ): Promise<{
    pointer: ThreadPointer;
    step: ExecStepResult | null;
    failure: UwfError | null;
    aborted: boolean;
  }> {
    const workflow = this.workflow(pointer.workflowHash);
    const role = workflow.roles[plan.role];
    if (!role) {
      throw new UwfError(
        "WORKFLOW_INVALID",
        `workflow "${workflow.name}" has no role "${plan.role}"`,
      );
    }
    const agent = resolveAgent(this.loadConfig(), {
      flag: options.agentFlag,
      workflow: pointer.workflow,
      role: plan.role,
      isOnPath: (command) => findExecutable(command, this.ctx.env.PATH ?? "", pointer.cwd) !== null,
    });
    if (!agent) {
      throw new UwfError("AGENT_UNKNOWN", `no agent is configured for role "${plan.role}"`, {
        hint: 'Set `defaultAgent` (and `agents`) in $UWF_HOME/config.yaml, or pass --agent (e.g. --agent "uwf-mock --scenario s.yaml").',
      });
    }
    const agentLabel = agent.alias ?? commandLabel(agent.command, agent.args);
    const cwd = plan.location ? resolve(pointer.cwd, plan.location) : pointer.cwd;
    const started = Date.now();
    this.ctx.logger.info("step.start", {
      thread: pointer.thread,
      role: plan.role,
      agent: agentLabel,
      cwd,
    });

    let failure: UwfError;
    try {
      const outcome = await runAdapter({
        command: agent.command,
        args: [
          ...agent.args,
          "--thread",
          pointer.thread,
          "--role",
          plan.role,
          "--prompt",
          plan.prompt,
        ],
        cwd,
        env: this.adapterEnv(plan),
        timeoutMs: (agent.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
        signal: this.ctx.signal,
        onStderr: (chunk) => this.ctx.progress(chunk.endsWith("\n") ? chunk.slice(0, -1) : chunk),
        onSpawn: (pid) => options.lock.setChild({ ...processIdentity(pid), pgid: pid }),
      });
      options.lock.setChild(null);
      if (outcome.aborted) {
        this.ctx.logger.warn("step.aborted", { thread: pointer.thread, role: plan.role });
        return { pointer, step: null, failure: null, aborted: true };
      }
      if (outcome.timedOut) {
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
        const verified = verifyStep(this.cas, outcome.lastLine, {
          prev: plan.prev,
          start: pointer.start,
          role: plan.role,
          schema: role.frontmatter,
        });
        const next = this.advance(pointer, verified.hash, plan, verified.payload.usage);
        const durationMs = Date.now() - started;
        this.ctx.logger.info("step.done", {
          thread: pointer.thread,
          role: plan.role,
          step: verified.hash,
          status: verified.status,
          durationMs,
        });
        return {
          pointer: next,
          step: {
            hash: verified.hash,
            role: plan.role,
            status: verified.status,
            agent: agentLabel,
            durationMs,
          },
          failure: null,
          aborted: false,
        };
      }
    } catch (error) {
      options.lock.setChild(null);
      if (error instanceof StepRejected) failure = agentFailure(error.message, "");
      else if (isUwfError(error) && error.code === "AGENT_FAILED") failure = error;
      else throw error;
    }
    this.ctx.logger.error("step.failed", {
      thread: pointer.thread,
      role: plan.role,
      reason: failure.message,
    });
    const suspended = this.suspend(pointer, {
      role: plan.role,
      reason: failure.message,
      kind: "failure",
      prompt: plan.prompt,
      location: plan.location,
    });
    return { pointer: suspended, step: null, failure, aborted: false };
  }

  private adapterEnv(plan: PlannedStep): Record<string, string | undefined> {
    const env: Record<string, string | undefined> = {
      ...this.readDotenv(),
      ...this.ctx.env,
      UWF_HOME: this.ctx.home,
    };
    if (plan.replaceHead) env.UWF_REPLACE_HEAD = "1";
    else delete env.UWF_REPLACE_HEAD;
    return env;
  }

  private readDotenv(): Record<string, string> {
    try {
      return parseDotenv(readFileSync(join(this.ctx.home, ".env")));
    } catch {
      return {};
    }
  }

  /** Move the head to a verified step, then settle what the moderator says comes next. */
  private advance(
    pointer: ThreadPointer,
    stepHash: string,
    plan: PlannedStep,
    usage: Usage,
  ): ThreadPointer {
    const moved: ThreadPointer = {
      ...pointer,
      usage: addUsage(pointer.usage ?? emptyUsage(), usage),
      head: stepHash,
      steps: plan.replaceHead ? pointer.steps : pointer.steps + 1,
      currentRole: plan.role,
      status: "idle",
      suspended: null,
      updatedAt: new Date().toISOString(),
    };
    this.threads.write(moved);
    return this.settle(moved);
  }

  /**
   * Record what the head leads to when it is not another role: `$END` completes the thread,
   * `$SUSPEND` waits for a human. A routing error suspends it with the reason.
   */
  settle(pointer: ThreadPointer): ThreadPointer {
    let next: Transition;
    try {
      next = this.route(pointer);
    } catch (error) {
      return this.suspend(pointer, {
        role: pointer.currentRole ?? START,
        reason: errorMessage(error),
        kind: "failure",
      });
    }
    if (next.kind === "end")
      return this.write({ ...pointer, status: "completed", suspended: null });
    if (next.kind === "suspend") {
      return this.suspend(pointer, {
        role: pointer.currentRole ?? START,
        reason: next.prompt,
        kind: "question",
      });
    }
    return pointer;
  }

  suspend(pointer: ThreadPointer, info: SuspendInfo): ThreadPointer {
    return this.write({ ...pointer, status: "suspended", suspended: info });
  }

  write(pointer: ThreadPointer): ThreadPointer {
    const updated = { ...pointer, updatedAt: new Date().toISOString() };
    this.threads.write(updated);
    return updated;
  }
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
}

/** The exec document of a run, with a failure's hint and how to retry it in the message. */
export function execDocument(summary: ExecSummary, status: ThreadStatus): ThreadExecDocument {
  return {
    thread: summary.pointer.thread,
    status,
    stoppedBecause: summary.stoppedBecause,
    message: summary.failure ? failureMessage(summary, summary.failure) : summary.message,
    steps: summary.steps,
  };
}

/** A failed step's reason, what to fix (when known), and how to retry it. */
function failureMessage(summary: ExecSummary, failure: UwfError): string {
  const lines = [summary.message];
  if (failure.hint) lines.push(failure.hint);
  lines.push(
    `The head did not move. To retry the step: uwf thread resume ${summary.pointer.thread}`,
  );
  return lines.join("\n");
}
