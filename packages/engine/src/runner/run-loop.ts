import type { ExecStepResult, ThreadPointer } from "@united-workforce/protocol";
import type { Lease, RunLimits } from "@united-workforce/store";
import { isUwfError } from "@united-workforce/util";
import type { FanoutTransition } from "../moderator/evaluate.js";
import { Router } from "../moderator/router.js";
import { keepWarmNode } from "../processes/warm-node.js";
import { type Applied, applyOutcome, settle, stopBefore } from "../state/apply-outcome.js";
import { guardReached, type LiftedGuard } from "../state/guards.js";
import type { RunContext } from "../steps/context.js";
import type { FanoutReport } from "../steps/fanout/child-standing.js";
import { runFanout } from "../steps/fanout/fanout-step.js";
import { CHILD_STEP_LIMIT, type ChildRunner } from "../steps/fanout/run-children.js";
import type { PlannedStep } from "../steps/planned-step.js";
import { cancelledHint } from "../threads/cancelled-hint.js";
import { fanoutLeaseCommand, takeThread } from "../threads/lease.js";
import { addToTotal, emptyTotal } from "../usage/total.js";
import { budgetReached, type RunBudget } from "./budget.js";
import { endsTheRun, planNext } from "./next-step.js";
import { childRetryPlan } from "./plans.js";
import { runStep } from "./run-step.js";
import { afterStep, terminalReason, waitsOnFanout } from "./stop-reasons.js";
import type { ExecSummary } from "./summary.js";

export interface RunOptions {
  count: number;
  agentFlag?: string | undefined;
  lease: Lease;
  /** Resume and poke choose the first step themselves instead of asking the moderator. */
  first?: PlannedStep;
  /** The thread as the caller read it under the lease, so the run does not read it again. */
  pointer?: ThreadPointer;
  /**
   * This run's budget: reaching it suspends the thread before the next step starts. Asked for
   * only once a step has run (config.yaml is read when a step needs it, not before).
   */
  limits?: () => RunLimits | Promise<RunLimits>;
  /**
   * A workflow guard this run does not check: `thread resume` of a thread a guard suspended
   * lifts that guard (the human who resumes decided to go past it) for the run, not for later.
   */
  liftedGuard?: LiftedGuard | undefined;
  /**
   * What this run has spent so far, shared with the runs it starts: a fan-out's children
   * spend from their parent's run, so one `--max-cost` holds for all of them.
   */
  budget?: RunBudget;
}

/** Where a run stands while its loop goes: the thread, what it stored, what it spent. */
interface RunState {
  pointer: ThreadPointer;
  steps: ExecStepResult[];
  fanouts: FanoutReport[];
  budget: RunBudget;
  limits: RunLimits | undefined;
}

/**
 * Run up to `count` steps on a thread whose lease the caller holds. Stops early when the thread
 * completes, suspends, fails or is interrupted, and always says why.
 */
export async function runSteps(
  run: RunContext,
  threadId: string,
  options: RunOptions,
): Promise<ExecSummary> {
  const pointer = options.pointer ?? (await run.store.threads.get(threadId));
  // The workflow, the start node and the head, and the role schemas the workflow points to,
  // in one round trip on PostgreSQL: routing, the adapter's context and the step's check all
  // read them.
  await run.store.cas.prefetch(
    [pointer.workflowHash, pointer.start, pointer.head],
    [pointer.workflowHash],
  );
  const state: RunState = {
    pointer,
    steps: [],
    fanouts: [],
    budget: options.budget ?? { spent: emptyTotal() },
    limits: undefined,
  };
  for (let i = 0; i < options.count; i++) {
    const ended = await nextStep(run, state, options, i);
    if (ended !== null) return ended;
  }
  const count = state.steps.length;
  return summary(
    state,
    "count",
    `ran ${count} step${count === 1 ? "" : "s"}; run \`uwf thread exec ${threadId}\` to continue`,
  );
}

/** Plan and run the run's `i`-th step; the run's summary when it ends there, else null. */
async function nextStep(
  run: RunContext,
  state: RunState,
  options: RunOptions,
  i: number,
): Promise<ExecSummary | null> {
  const first = i === 0 ? options.first : undefined;
  // A parent waiting on its fan-out goes on: its children may have ended meanwhile.
  if (!first && !waitsOnFanout(state.pointer)) {
    const terminal = terminalReason(state.pointer, options.agentFlag);
    if (terminal) return summary(state, terminal.because, terminal.message);
  }
  const planned = await planNext(run, state.pointer, first);
  if (planned === null) {
    state.pointer = await settle(run, state.pointer);
    const terminal = terminalReason(state.pointer);
    return summary(state, terminal?.because ?? "count", terminal?.message ?? "");
  }
  const { step, fanout } = planned;
  const stopped = await stopsBefore(run, state, options, step);
  if (stopped !== null) return stopped;
  if (run.signal.aborted) {
    return interrupted(
      run,
      state,
      "interrupted before the step started",
      "before the step started",
    );
  }
  if (fanout !== null) return runFanoutStep(run, state, options, step, fanout, first !== undefined);
  // The next step's Node starts while this one runs, unless no step can follow this one: a
  // run that ends early otherwise leaves one spare process behind.
  keepWarmNode(i + 1 < options.count && !(await endsTheRun(run, state.pointer, step.role)));
  const applied = await runStep(run, state.pointer, step, options);
  state.pointer = applied.pointer;
  if (applied.aborted) {
    return interrupted(
      run,
      state,
      `interrupted while role "${step.role}" ran; the head did not move`,
      `while role "${step.role}" ran; the head did not move`,
    );
  }
  if (applied.failure) {
    return { ...summary(state, "failed", applied.failure.message), failure: applied.failure };
  }
  if (applied.usage) state.budget.spent = addToTotal(state.budget.spent, applied.usage);
  return afterApplied(state, applied);
}

/** A workflow guard or the run's budget stops the run before `step`: the thread waits. */
async function stopsBefore(
  run: RunContext,
  state: RunState,
  options: RunOptions,
  step: PlannedStep,
): Promise<ExecSummary | null> {
  const { thread } = state.pointer;
  const guard = await guardReached(run, state.pointer, step, options.liftedGuard);
  if (guard !== null) {
    state.pointer = await stopBefore(run, state.pointer, step, guard.reason, guard.guard);
    return summary(
      state,
      "guard",
      `thread is suspended before role "${step.role}": ${guard.reason}. To go past it: uwf thread resume ${thread}`,
    );
  }
  // Nothing is spent before the first step, so no limit can be reached there (a fan-out
  // child's first step may find its parent's run has spent it all).
  const spent = state.budget.spent;
  if (spent.steps === 0) return null;
  state.limits ??= (await options.limits?.()) ?? {};
  const overBudget = budgetReached(state.limits, spent);
  if (overBudget === null) return null;
  state.pointer = await stopBefore(run, state.pointer, step, overBudget);
  return summary(
    state,
    "budget",
    `thread is suspended before role "${step.role}": ${overBudget}. To continue: uwf thread resume ${thread}`,
  );
}

/** Run a fan-out's children, then apply its join (or the parent's wait) to the parent. */
async function runFanoutStep(
  run: RunContext,
  state: RunState,
  options: RunOptions,
  step: PlannedStep,
  fanout: FanoutTransition,
  resumed: boolean,
): Promise<ExecSummary | null> {
  const result = await runFanout(run, state.pointer, fanout, {
    // `thread resume` of the parent (a chosen first step) re-runs failed children.
    retryFailed: resumed,
    runChild: childRunner(run, state, options),
  });
  state.fanouts.push(result.report);
  if (result.kind === "stopped") {
    return interrupted(run, state, result.message, `while the fan-out to role "${step.role}" ran`);
  }
  const parent = state.pointer.thread;
  const applied = await applyOutcome(run, state.pointer, result.plan, result.outcome);
  state.pointer = applied.pointer;
  if (result.joined !== null && applied.step !== null) {
    run.events.emit("fanout.joined", {
      thread: parent,
      role: result.plan.role,
      step: applied.step.hash,
      stepNumber: applied.pointer.steps,
      ...result.joined,
    });
  }
  if (applied.step === null) {
    return summary(state, result.failed ? "failed" : "suspended", result.message);
  }
  return afterApplied(state, applied);
}

/**
 * How the run goes on after a stored step: on, or to its end when the thread completed or
 * waits. A step that was good but whose route failed (e.g. its edge prompt renders blank) ends
 * the run as failed: the thread waits for a fix like after any failure.
 */
function afterApplied(state: RunState, applied: Applied): ExecSummary | null {
  if (applied.step) state.steps.push(applied.step);
  const { pointer } = state;
  if (pointer.status === "suspended" && pointer.suspended?.kind === "failure") {
    return summary(state, "failed", pointer.suspended.reason);
  }
  if (pointer.status === "completed" || pointer.status === "suspended") {
    const terminal = afterStep(pointer);
    return summary(state, terminal.because, terminal.message);
  }
  return null;
}

/**
 * How a fan-out's children run: each under its own lease, up to CHILD_STEP_LIMIT steps in this
 * exec, with the agent the parent runs with (a child remembers it like an --agent), the parent
 * run's limits and the budget it spends from. Each child's events name the parent, so
 * `thread watch <parent>` follows them.
 */
function childRunner(run: RunContext, state: RunState, options: RunOptions): ChildRunner {
  const parent = state.pointer;
  const agentFlag = options.agentFlag ?? (parent.agent as string | undefined);
  return async (child, retryFailed) => {
    // One reader per child: it remembers the head this child's run stored last.
    const childRun: RunContext = {
      ...run,
      router: new Router(run.store.cas),
      events: run.events.forChild(parent.thread),
    };
    let lease: Lease;
    try {
      lease = await takeThread(run.store, child, fanoutLeaseCommand(parent.thread), run.events);
    } catch (error) {
      if (isUwfError(error) && error.code === "THREAD_BUSY") return "busy";
      throw error;
    }
    try {
      const before = await run.store.threads.get(child);
      const first = retryFailed ? await childRetryPlan(childRun.router, before) : null;
      return await runSteps(childRun, child, {
        count: CHILD_STEP_LIMIT,
        agentFlag,
        lease,
        ...(first === null ? {} : { first }),
        ...(options.limits === undefined ? {} : { limits: options.limits }),
        budget: state.budget,
      });
    } finally {
      await lease.release();
    }
  };
}

function summary(
  state: RunState,
  stoppedBecause: ExecSummary["stoppedBecause"],
  message: string,
): ExecSummary {
  return {
    pointer: state.pointer,
    steps: state.steps,
    stoppedBecause,
    message,
    failure: null,
    ...(state.fanouts.length > 0 ? { fanouts: state.fanouts } : {}),
  };
}

/**
 * An interrupted run says what interrupted it when the store knows: `thread cancel` marks the
 * thread cancelled before it stops the exec, so the exec's last word names the cancel.
 */
async function interrupted(
  run: RunContext,
  state: RunState,
  message: string,
  during: string,
): Promise<ExecSummary> {
  const now = await run.store.threads.get(state.pointer.thread).catch(() => null);
  if (now?.status !== "cancelled") return summary(state, "stopped", message);
  state.pointer = now;
  return summary(state, "stopped", `thread was cancelled ${during}. ${cancelledHint(now)}`);
}
