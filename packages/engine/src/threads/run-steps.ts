import {
  END,
  type ExecStepResult,
  SUSPEND,
  type ThreadPointer,
  type UsageTotal,
} from "@united-workforce/protocol";
import type { Lease, RunLimits } from "@united-workforce/store";
import { shellQuote, UwfError } from "@united-workforce/util";
import type { FanoutTransition } from "../moderator/evaluate.js";
import { addToTotal, emptyTotal } from "../usage/total.js";
import { cancelledHint } from "./cancelled-hint.js";
import { type Engine, type ExecSummary, type PlannedStep, prevOf } from "./engine.js";
import { type FanoutReport, runFanout } from "./fanout.js";
import { guardReached } from "./guards.js";
import { keepWarmNode } from "./warm-node.js";

export interface RunOptions {
  count: number;
  agentFlag?: string | undefined;
  lease: Lease;
  /** Resume and poke choose the first step themselves instead of asking the moderator. */
  first?: (pointer: ThreadPointer) => PlannedStep | Promise<PlannedStep>;
  /**
   * This run's budget: reaching it suspends the thread before the next step starts. Asked for
   * only once a step has run (config.yaml is read when a step needs it, not before).
   */
  limits?: () => RunLimits | Promise<RunLimits>;
  /**
   * A workflow guard this run does not check: `thread resume` of a thread a guard suspended
   * lifts that guard (the human who resumes decided to go past it) for the run, not for later.
   */
  liftedGuard?: LiftedGuard;
  /**
   * What this run has spent so far, shared with the runs it starts: a fan-out's children
   * spend from their parent's run, so one `--max-cost` holds for all of them.
   */
  budget?: RunBudget;
}

/** The usage a run (and the fan-out children it runs) spent; its limits are checked on it. */
export interface RunBudget {
  spent: UsageTotal;
}

/** A guard a resumed run goes past: `maxSteps`, or the `maxVisits` of one role. */
export interface LiftedGuard {
  guard: "maxSteps" | "maxVisits";
  role: string;
}

/**
 * Run up to `count` steps on a thread whose lock the caller holds. Stops early when the thread
 * completes, suspends, fails or is interrupted, and always says why.
 */
export async function runSteps(
  engine: Engine,
  threadId: string,
  options: RunOptions,
): Promise<ExecSummary> {
  let pointer = await engine.store.threads.get(threadId);
  const steps: ExecStepResult[] = [];
  const budget: RunBudget = options.budget ?? { spent: emptyTotal() };
  let limits: RunLimits | undefined;
  const fanouts: FanoutReport[] = [];
  const stop = (stoppedBecause: ExecSummary["stoppedBecause"], message: string): ExecSummary => ({
    pointer,
    steps,
    stoppedBecause,
    message,
    failure: null,
    ...(fanouts.length > 0 ? { fanouts } : {}),
  });
  // An interrupted run says what interrupted it when the store knows: `thread cancel` marks the
  // thread cancelled before it stops the exec, so the exec's last word names the cancel.
  const interrupted = async (message: string, during: string): Promise<ExecSummary> => {
    const now = await engine.store.threads.get(threadId).catch(() => null);
    if (now?.status !== "cancelled") return stop("stopped", message);
    pointer = now;
    return stop("stopped", `thread was cancelled ${during}. ${cancelledHint(now)}`);
  };

  for (let i = 0; i < options.count; i++) {
    const custom = i === 0 ? options.first : undefined;
    // A parent waiting on its fan-out goes on: its children may have ended meanwhile.
    if (!custom && !waitsOnFanout(pointer)) {
      const terminal = terminalReason(pointer, options.agentFlag);
      if (terminal) return stop(terminal.because, terminal.message);
    }
    let plan: PlannedStep;
    let fanout: FanoutTransition | null = null;
    if (custom) {
      plan = await custom(pointer);
      await refuseOffRoute(engine, pointer, plan);
      fanout = await fanoutInto(engine, pointer, plan.role);
    } else {
      const next = await engine.route(pointer);
      if (next.kind === "fanout") {
        fanout = next;
        plan = {
          role: next.role,
          prompt: next.template,
          location: null,
          prev: prevOf(pointer),
          replaceHead: false,
        };
      } else if (next.kind !== "next") {
        pointer = await engine.settle(pointer);
        const terminal = terminalReason(pointer);
        return stop(terminal?.because ?? "count", terminal?.message ?? "");
      } else {
        plan = {
          role: next.role,
          prompt: next.prompt,
          location: next.location,
          prev: prevOf(pointer),
          replaceHead: false,
        };
      }
    }
    const guard = await guardReached(engine, pointer, plan, options.liftedGuard);
    if (guard !== null) {
      pointer = await engine.suspendForBudget(pointer, plan, guard.reason, guard.guard);
      return stop(
        "guard",
        `thread is suspended before role "${plan.role}": ${guard.reason}. To go past it: uwf thread resume ${threadId}`,
      );
    }
    // Nothing is spent before the first step, so no limit can be reached there (a fan-out
    // child's first step may find its parent's run has spent it all).
    const spentSome = budget.spent.steps > 0;
    if (spentSome && limits === undefined) limits = (await options.limits?.()) ?? {};
    const overBudget = spentSome ? budgetReached(limits!, budget.spent) : null;
    if (overBudget !== null) {
      pointer = await engine.suspendForBudget(pointer, plan, overBudget);
      return stop(
        "budget",
        `thread is suspended before role "${plan.role}": ${overBudget}. To continue: uwf thread resume ${threadId}`,
      );
    }
    if (engine.ctx.signal.aborted) {
      return interrupted("interrupted before the step started", "before the step started");
    }
    if (fanout !== null) {
      // `thread resume` of the parent (a custom first step) re-runs failed children.
      const outcome = await runFanout(engine, pointer, fanout, {
        agentFlag: options.agentFlag,
        retryFailed: custom !== undefined,
        ...(options.limits === undefined ? {} : { limits: options.limits }),
        budget,
      });
      pointer = outcome.pointer;
      fanouts.push(outcome.report);
      if (outcome.kind === "stopped") {
        return interrupted(outcome.message, `while the fan-out to role "${plan.role}" ran`);
      }
      if (outcome.kind === "suspended") {
        return stop(outcome.failed ? "failed" : "suspended", outcome.message);
      }
      steps.push(outcome.step);
      if (pointer.status === "suspended" && pointer.suspended?.kind === "failure") {
        return stop("failed", pointer.suspended.reason);
      }
      if (pointer.status === "completed" || pointer.status === "suspended") {
        const terminal = afterStep(pointer);
        return stop(terminal.because, terminal.message);
      }
      continue;
    }
    // The next step's Node starts while this one runs, unless no step can follow this one: a
    // run that ends early otherwise leaves one spare process behind.
    keepWarmNode(i + 1 < options.count && !(await endsTheRun(engine, pointer, plan.role)));
    const result = await engine.runStep(pointer, plan, {
      agentFlag: options.agentFlag,
      lease: options.lease,
    });
    pointer = result.pointer;
    if (result.aborted) {
      return interrupted(
        `interrupted while role "${plan.role}" ran; the head did not move`,
        `while role "${plan.role}" ran; the head did not move`,
      );
    }
    if (result.failure) {
      return { ...stop("failed", result.failure.message), failure: result.failure };
    }
    if (result.step) steps.push(result.step);
    if (result.usage) budget.spent = addToTotal(budget.spent, result.usage);
    // The step was good but routing from it failed (e.g. its edge prompt renders blank): the
    // thread waits for a fix like after any failure, and the exit code says so.
    if (pointer.status === "suspended" && pointer.suspended?.kind === "failure") {
      return stop("failed", pointer.suspended.reason);
    }
    if (pointer.status === "completed" || pointer.status === "suspended") {
      const terminal = afterStep(pointer);
      return stop(terminal.because, terminal.message);
    }
  }
  return stop(
    "count",
    `ran ${steps.length} step${steps.length === 1 ? "" : "s"}; run \`uwf thread exec ${threadId}\` to continue`,
  );
}

/**
 * What a run would stop on before its first step, checked without running or writing anything:
 * the route from the head, and the agent the next role needs (config.yaml, `--agent`). A
 * background exec checks this before it detaches, so that what a foreground exec reports at
 * once (an unknown agent, none configured) is reported at once, with the same exit code.
 */
export async function checkFirstStep(
  engine: Engine,
  pointer: ThreadPointer,
  options: { agentFlag?: string | undefined; first?: PlannedStep },
): Promise<void> {
  let role = options.first?.role;
  if (role === undefined) {
    const next = await engine.route(pointer);
    // Settling (`$END`, a question) needs no agent; a fan-out's children choose their own.
    if (next.kind !== "next") return;
    role = next.role;
  }
  await engine.checkAgent(pointer, role, options.agentFlag);
}

/**
 * A thread suspended because its agent failed (for good, or after transient failures): the
 * exit code of a run that stops on it is 4, as when the agent failed in that run.
 */
export function suspendedByFailure(pointer: ThreadPointer): boolean {
  const kind = pointer.suspended?.kind;
  return pointer.status === "suspended" && (kind === "failure" || kind === "retry");
}

/** A parent suspended until its fan-out's children end: exec looks at them again. */
export function waitsOnFanout(pointer: ThreadPointer): boolean {
  return pointer.status === "suspended" && pointer.suspended?.kind === "fanout";
}

/**
 * A chosen first step (resume, poke, a fan-out's retried child) must be one the moderator could
 * have routed to from the step it follows: a step off the route would make the thread's history
 * one `thread verify` rejects. Nothing runs and nothing is written when it is not.
 */
async function refuseOffRoute(
  engine: Engine,
  pointer: ThreadPointer,
  plan: PlannedStep,
): Promise<void> {
  const problem = await engine.routeProblem(pointer, plan);
  if (problem === null) return;
  const after = plan.prev === null ? "the thread's start" : `step ${plan.prev}`;
  throw new UwfError(
    "THREAD_STATE",
    `thread ${pointer.thread} cannot run role "${plan.role}" after ${after}: ${problem}; nothing was run or written`,
    {
      hint: `See where it stands with: uwf thread show ${pointer.thread}. To run the head's role again in its place: uwf thread poke ${pointer.thread} -p "<instructions>"`,
    },
  );
}

/**
 * The fan-out a chosen first step (resume) runs when its role is a join: the one the head
 * routes to. Null for any other role.
 */
async function fanoutInto(
  engine: Engine,
  pointer: ThreadPointer,
  role: string,
): Promise<FanoutTransition | null> {
  const workflow = await engine.workflow(pointer.workflowHash);
  if (workflow.roles[role]?.join !== true) return null;
  const next = await engine.route(pointer);
  if (next.kind !== "fanout" || next.role !== role) {
    throw new UwfError(
      "THREAD_STATE",
      `role "${role}" is a join, and thread ${pointer.thread}'s head does not fan out into it`,
      { hint: `See where the thread stands with: uwf thread show ${pointer.thread}` },
    );
  }
  return next;
}

/**
 * Why the run may not start another step, or null. Cost is fail-closed: a step that reported no
 * cost makes the run's cost unknown, so a cost limit cannot be shown to hold and the run stops.
 */
export function budgetReached(limits: RunLimits, spent: UsageTotal): string | null {
  if (limits.maxSteps !== undefined && spent.steps >= limits.maxSteps) {
    return `this run reached its step limit (${spent.steps} of ${limits.maxSteps})`;
  }
  if (limits.maxCostUsd === undefined) return null;
  const cost = formatUsd(spent.costUsd ?? 0);
  if (spent.unknownCostSteps > 0) {
    const which = spent.unknownCostSteps === 1 ? "1 step" : `${spent.unknownCostSteps} steps`;
    return `this run's cost is unknown (${which} reported no cost; known cost ${cost}), so its cost limit of ${formatUsd(limits.maxCostUsd)} cannot be checked`;
  }
  if ((spent.costUsd ?? 0) >= limits.maxCostUsd) {
    return `this run reached its cost limit (${cost} of ${formatUsd(limits.maxCostUsd)})`;
  }
  return null;
}

function formatUsd(value: number): string {
  return `$${value < 1 ? value.toFixed(4) : value.toFixed(2)}`;
}

/**
 * Why a run stops after its step left the thread completed or waiting. A guard reached by the
 * next role (a human role is asked at once, so its guard is checked when the step is stored)
 * says `guard`, as when the run reaches one before an agent's step.
 */
function afterStep(pointer: ThreadPointer): NonNullable<ReturnType<typeof terminalReason>> {
  const terminal = terminalReason(pointer)!;
  return pointer.suspended?.kind === "guard" ? { ...terminal, because: "guard" } : terminal;
}

/**
 * Why no step may run on a thread in this state, or null when one may: `failed` (exit 4) for a
 * thread its agent's failure suspended, `suspended` for one that waits on a human, a budget or
 * a guard, `completed`, `cancelled`. The `uwf thread resume` it suggests carries `agentFlag`,
 * the `--agent` an exec was given: exec runs nothing here, and resume is where that agent runs.
 */
export function terminalReason(
  pointer: ThreadPointer,
  agentFlag?: string,
): { because: ExecSummary["stoppedBecause"]; message: string } | null {
  const agent = agentFlag === undefined ? "" : ` --agent ${shellQuote(agentFlag)}`;
  const resume = `uwf thread resume ${pointer.thread}${agent}`;
  switch (pointer.status) {
    case "completed":
      return {
        because: "completed",
        message: `thread is completed. To run it again from $START.resume: ${resume}`,
      };
    case "cancelled":
      return {
        because: "cancelled",
        message: `thread is cancelled; nothing runs on it. ${cancelledHint(pointer)}`,
      };
    case "suspended": {
      const info = pointer.suspended;
      if (info?.kind === "fanout") {
        return { because: "suspended", message: `thread waits for its fan-out: ${info.reason}` };
      }
      // Its agent failed in an earlier run, and nothing ran since: the exit code says so again
      // (a script that retries exec must not take the thread for one that moved on).
      if (info?.kind === "failure") {
        return {
          because: "failed",
          message: `thread is suspended: role "${info.role}" failed: ${info.reason}\nThe head did not move. To retry the step: ${resume}`,
        };
      }
      if (info?.kind === "human") {
        return {
          because: "suspended",
          message: `thread waits for a human to answer role "${info.role}":\n${info.reason}`,
        };
      }
      const reason = !info
        ? ""
        : info.kind === "budget" || info.kind === "guard"
          ? `${info.kind}, before role "${info.role}": ${info.reason}`
          : info.kind === "retry"
            ? `transient failure of role "${info.role}", retry after ${info.retryAfter}`
            : `${info.kind} from role "${info.role}": ${info.reason}`;
      const how =
        info?.kind === "question"
          ? `uwf thread resume ${pointer.thread} -p "<your answer>"${agent}`
          : info?.kind === "retry"
            ? `uwf thread exec ${pointer.thread}${agent} --wait (waits until then), or ${resume} (now)`
            : resume;
      return {
        because: info?.kind === "retry" ? "failed" : "suspended",
        message: `thread is suspended (${reason}). To continue: ${how}`,
      };
    }
    default:
      return null;
  }
}

/**
 * Whether every edge out of `role` leads to `$END` or `$SUSPEND`: its step ends the run,
 * whatever it answers (a status the graph does not route suspends the thread too).
 */
async function endsTheRun(engine: Engine, pointer: ThreadPointer, role: string): Promise<boolean> {
  const { graph } = await engine.workflow(pointer.workflowHash);
  return Object.values(graph[role] ?? {}).every(
    (edge) => edge.role === END || edge.role === SUSPEND,
  );
}
