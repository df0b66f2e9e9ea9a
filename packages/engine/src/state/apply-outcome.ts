import {
  addUsage,
  type ExecStepResult,
  emptyUsage,
  START,
  type SuspendInfo,
  type ThreadPointer,
  type Usage,
} from "@united-workforce/protocol";
import { errorMessage, type UwfError } from "@united-workforce/util";
import type { Transition } from "../moderator/evaluate.js";
import type { RunContext } from "../steps/context.js";
import { humanSuspension, isHumanRole } from "../steps/human-step.js";
import type { AgentStepOutcome } from "../steps/outcome.js";
import { type PlannedStep, prevOf, rerunOf } from "../steps/planned-step.js";
import type { VerifiedStep } from "../steps/verify-step.js";
import { guidanceLeft } from "../threads/steer.js";
import { costKnown } from "../usage/total.js";
import { guardReached } from "./guards.js";
import { writePointer, writeUnlessChanged } from "./write-pointer.js";

/**
 * The one place that moves a thread: each step kind returns an outcome, and this module turns
 * it into the thread's next pointer, stores that in one compare-and-swap write, and tells the
 * event stream (the step stored or failed, then the thread completed or waiting).
 */

/** What applying a step's outcome did: the pointer after it, and the step stored (if any). */
export interface Applied {
  pointer: ThreadPointer;
  step: ExecStepResult | null;
  /** The new step's usage (for budgets); null when no step was stored. */
  usage: Usage | null;
  failure: UwfError | null;
  aborted: boolean;
}

type Run = Pick<RunContext, "store" | "router" | "events">;

/** Apply a step's outcome to the thread it ran on (`pointer`: as it was when the step began). */
export async function applyOutcome(
  run: Run,
  pointer: ThreadPointer,
  plan: PlannedStep,
  outcome: AgentStepOutcome,
): Promise<Applied> {
  const { rememberAgent } = outcome;
  const from = rememberAgent === undefined ? pointer : { ...pointer, agent: rememberAgent };
  const none = { step: null, usage: null, failure: null, aborted: false };
  switch (outcome.kind) {
    case "stored": {
      // The notes the agent got while it ran are taken with those its prompt carried.
      const live = outcome.liveGuidance ?? [];
      const taking =
        live.length === 0 ? plan : { ...plan, guidance: [...(plan.guidance ?? []), ...live] };
      const done = await commitStep(
        run,
        from,
        taking,
        outcome.verified,
        outcome.agent,
        outcome.startedAtMs,
      );
      return { ...done, failure: null, aborted: false };
    }
    case "failed": {
      run.events.emit("step.failed", {
        thread: pointer.thread,
        role: plan.role,
        reason: outcome.failure.message,
      });
      const retrying =
        outcome.retryAfter === undefined
          ? {}
          : { kind: "retry" as const, retryAfter: outcome.retryAfter };
      const waiting = await suspend(run, from, {
        role: plan.role,
        reason: outcome.failure.message,
        kind: "failure",
        ...rerunOf(plan),
        ...retrying,
      });
      return { ...none, pointer: waiting, failure: outcome.failure };
    }
    case "waits":
      return { ...none, pointer: await suspend(run, from, outcome.suspend) };
    case "aborted": {
      run.events.emit("step.aborted", { thread: pointer.thread, role: plan.role });
      // The agent it was run with is remembered, unless the thread changed meanwhile (cancel).
      const kept = from === pointer ? pointer : await writeUnlessChanged(run.store, from);
      return { ...none, pointer: kept, aborted: true };
    }
  }
}

/**
 * Move the head to a step that passed verification (or was written by uwf itself: a human's
 * answer, a join) and settle what the moderator says comes next, in one pointer write: a crash
 * leaves either the old head or the new head with its final status.
 */
export async function commitStep(
  run: Run,
  pointer: ThreadPointer,
  plan: PlannedStep,
  verified: VerifiedStep,
  agent: string,
  startedAtMs: number,
): Promise<{ pointer: ThreadPointer; step: ExecStepResult; usage: Usage }> {
  run.router.remember({ hash: verified.hash, step: verified.payload, output: verified.output });
  const usage = verified.payload.usage;
  const moved: ThreadPointer = {
    ...pointer,
    usage: addUsage(pointer.usage ?? emptyUsage(), usage),
    unknownCostSteps: (pointer.unknownCostSteps ?? 0) + (costKnown(usage) ? 0 : 1),
    head: verified.hash,
    steps: plan.replaceHead ? pointer.steps : pointer.steps + 1,
    currentRole: plan.role,
    status: "idle",
    suspended: null,
    guidance: guidanceLeft(pointer, plan.guidance),
  };
  if (moved.guidance === undefined) delete moved.guidance;
  const next = await writePointer(run.store, await settled(run, moved), plan.guidance);
  const durationMs = Date.now() - startedAtMs;
  run.events.emit("step.done", {
    thread: pointer.thread,
    role: plan.role,
    step: verified.hash,
    status: verified.status,
    durationMs,
    usage,
    agent,
    stepNumber: next.steps,
  });
  await announce(run, next);
  const step = { hash: verified.hash, role: plan.role, status: verified.status, agent, durationMs };
  return { pointer: next, step, usage };
}

/** The thread waits: for a person, an answer, its fan-out. Listeners hear it. */
export async function suspend(
  run: Run,
  pointer: ThreadPointer,
  info: SuspendInfo,
): Promise<ThreadPointer> {
  const waiting = await writePointer(run.store, suspended(pointer, info));
  await announce(run, waiting);
  return waiting;
}

/**
 * A run reached its budget, or the step a workflow guard: the thread waits, before the planned
 * step starts, for a human to decide (`thread resume` runs that step).
 */
export async function stopBefore(
  run: Run,
  pointer: ThreadPointer,
  plan: PlannedStep,
  reason: string,
  guard?: "maxSteps" | "maxVisits",
): Promise<ThreadPointer> {
  const next = await writePointer(
    run.store,
    suspended(pointer, {
      role: plan.role,
      reason,
      kind: guard === undefined ? "budget" : "guard",
      ...rerunOf(plan),
      ...(guard === undefined ? {} : { guard }),
    }),
  );
  run.events.emit(guard === undefined ? "exec.budget" : "exec.guard", {
    thread: pointer.thread,
    role: plan.role,
    reason,
  });
  await announce(run, next);
  return next;
}

/**
 * Record what the head leads to when it is not another role: `$END` completes the thread,
 * `$SUSPEND` waits for a human. A routing error suspends it with the reason.
 */
export async function settle(run: Run, pointer: ThreadPointer): Promise<ThreadPointer> {
  const next = await settled(run, pointer);
  return next === pointer ? pointer : writePointer(run.store, next);
}

/** Archive a thread as cancelled: nothing runs on it from now on. */
export function cancel(
  run: Pick<RunContext, "store">,
  pointer: ThreadPointer,
): Promise<ThreadPointer> {
  return writePointer(run.store, { ...pointer, status: "cancelled" });
}

/** Tell listeners when the thread now waits or has finished. */
async function announce(run: Run, pointer: ThreadPointer): Promise<void> {
  if (pointer.status === "completed") {
    const message = await run.router.endMessage(pointer);
    run.events.emit("thread.completed", { thread: pointer.thread, message });
  }
  if (pointer.status === "suspended" && pointer.suspended) {
    const { role, reason, kind } = pointer.suspended;
    run.events.emit("thread.suspended", { thread: pointer.thread, role, reason, kind });
  }
}

/** The pointer as `settle` would store it; the same object when nothing changes. */
async function settled(run: Run, pointer: ThreadPointer): Promise<ThreadPointer> {
  let next: Transition;
  try {
    next = await run.router.route(pointer);
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
  const workflow = await run.router.workflow(pointer.workflowHash);
  if (!isHumanRole(workflow.roles[next.role])) return pointer;
  const { role, prompt, location } = next;
  const plan = { role, prompt, location, prev: prevOf(pointer), replaceHead: false };
  // A chain already past maxSteps got there by a resume that lifted it for its run; the
  // step that run just took leads to this human, who is asked (a maxVisits is never
  // lifted here: a resume lifting it starts with that role's visit, which ends the run).
  const past = workflow.maxSteps !== undefined && pointer.steps > workflow.maxSteps;
  const lifted = past ? { guard: "maxSteps" as const, role } : undefined;
  const guard = await guardReached(run, pointer, plan, lifted);
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
  return suspended(pointer, await humanSuspension(run, pointer, role, prompt, location));
}

function suspended(pointer: ThreadPointer, info: SuspendInfo): ThreadPointer {
  return { ...pointer, status: "suspended", suspended: info };
}
