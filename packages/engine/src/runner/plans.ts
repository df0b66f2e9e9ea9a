import { START, type SuspendInfo, type ThreadPointer } from "@united-workforce/protocol";
import { isoTime, UwfError } from "@united-workforce/util";
import type { Router } from "../moderator/router.js";
import type { LiftedGuard } from "../state/guards.js";
import { type PlannedStep, prevOf } from "../steps/planned-step.js";
import { cancelledHint } from "../threads/cancelled-hint.js";

/** Suspensions that stopped a planned step (it failed, or did not start): it runs again. */
const RERUN_KINDS: ReadonlySet<SuspendInfo["kind"]> = new Set([
  "failure",
  "retry",
  "budget",
  "guard",
]);

/**
 * The step a thread suspended on a role runs again (`thread resume`, `thread exec --wait`, a
 * fan-out re-running its failed children): that role, with `prompt`, where it was to run. A
 * failed poke's step replaces the head again, following the head's own `prev`, as the poke
 * would have: following the head would put the role where the head's status does not lead.
 */
export async function rerunStep(
  router: Router,
  pointer: ThreadPointer,
  info: SuspendInfo,
  prompt: string,
): Promise<PlannedStep> {
  const head = (await replacesHead(router, pointer, info)) ? await router.headStep(pointer) : null;
  if (head === null) {
    return {
      role: info.role,
      prompt,
      location: info.location ?? null,
      prev: prevOf(pointer),
      replaceHead: false,
    };
  }
  return {
    role: info.role,
    prompt,
    location: info.location ?? head.cwd,
    prev: head.prev,
    replaceHead: true,
  };
}

/**
 * Whether the step a suspended thread runs again replaces the head: a poke's, stopped by a
 * failure or a guard. Pointers written before uwf recorded `replaceHead` say nothing; there, a
 * step of the head's own role that the head's status does not lead to can only be a poke's
 * (a step the moderator planned follows the head's route).
 */
export async function replacesHead(
  router: Router,
  pointer: ThreadPointer,
  info: SuspendInfo,
): Promise<boolean> {
  if (!RERUN_KINDS.has(info.kind) || pointer.head === pointer.start) return false;
  if (info.replaceHead !== undefined) return info.replaceHead;
  if (info.role !== pointer.currentRole) return false;
  return (await router.routeProblem(pointer, { role: info.role, prev: pointer.head })) !== null;
}

/** The role a thread runs next, and whether its step replaces the head. */
export interface PendingStep {
  role: string;
  replaceHead: boolean;
}

/**
 * What runs next on a thread: for an idle one, the role its head routes to (exec runs it); for
 * a suspended one, the role `thread resume` (or `thread answer`) runs, and whether it replaces
 * the head (a failed poke's retry). Null when nothing runs next: the thread completed or was
 * cancelled, or its head leads to `$END` or `$SUSPEND`. A routing error is thrown.
 */
export async function pendingStep(
  router: Router,
  pointer: ThreadPointer,
): Promise<PendingStep | null> {
  if (pointer.status !== "idle" && pointer.status !== "suspended") return null;
  const info = pointer.status === "suspended" ? pointer.suspended : null;
  if (info && info.role !== START) {
    return { role: info.role, replaceHead: await replacesHead(router, pointer, info) };
  }
  const next = await router.route(pointer);
  return next.kind === "next" || next.kind === "fanout"
    ? { role: next.role, replaceHead: false }
    : null;
}

/**
 * The step `thread resume` runs. A thread suspended by a question re-runs the role that asked,
 * with its question and the answer; by a failure, a budget, a guard or transient failures, the
 * step it stopped (or failed) at; a completed thread restarts through `$START.resume`. `answer`
 * is the human's text (null: none given).
 */
export async function planResume(
  router: Router,
  pointer: ThreadPointer,
  answer: string | null,
): Promise<PlannedStep> {
  const id = pointer.thread;
  switch (pointer.status) {
    case "cancelled":
      throw new UwfError("THREAD_STATE", `thread ${id} is cancelled and cannot be resumed`, {
        hint: cancelledHint(pointer),
      });
    case "idle":
      throw new UwfError(
        "THREAD_STATE",
        `thread ${id} is not suspended or completed; nothing to resume`,
        { hint: `Run its next step with: uwf thread exec ${id}` },
      );
    case "completed":
      return planRestart(router, pointer, answer);
    default:
      return planResumeSuspended(router, pointer, answer);
  }
}

/** A completed thread runs again from `$START.resume`, with the human's note. */
async function planRestart(
  router: Router,
  pointer: ThreadPointer,
  answer: string | null,
): Promise<PlannedStep> {
  const next = await router.route(pointer, "resume");
  if (next.kind !== "next") {
    throw new UwfError(
      "THREAD_STATE",
      `thread ${pointer.thread} cannot restart: $START.resume of its workflow does not lead to a role`,
      {
        hint: `Continue from one of its steps instead: uwf step list ${pointer.thread}, then uwf step fork <step>.`,
      },
    );
  }
  return {
    role: next.role,
    prompt: withNote(next.prompt, answer, "Note from a human"),
    location: next.location,
    prev: prevOf(pointer),
    replaceHead: false,
  };
}

async function planResumeSuspended(
  router: Router,
  pointer: ThreadPointer,
  answer: string | null,
): Promise<PlannedStep> {
  const id = pointer.thread;
  const info = pointer.suspended;
  if (!info || info.role === START) {
    const next = await router.route(pointer);
    if (next.kind !== "next")
      throw new UwfError("THREAD_STATE", `thread ${id} has no role to resume`, {
        hint: `See where it stopped with: uwf thread show ${id}`,
      });
    return {
      role: next.role,
      prompt: withNote(next.prompt, answer, ANSWER_NOTE),
      location: next.location,
      prev: prevOf(pointer),
      replaceHead: false,
    };
  }
  if (info.kind === "human") {
    throw new UwfError(
      "THREAD_STATE",
      `thread ${id} waits for a human to answer role "${info.role}"; resume only re-runs agents`,
      {
        hint: `Answer it with: uwf thread answer ${id} --status <status> [--set field=value]… (\`uwf thread show ${id}\` lists what the role accepts)`,
      },
    );
  }
  if (info.kind === "question" && answer === null) {
    throw new UwfError("USAGE", `thread ${id} is waiting for an answer: ${info.reason}`, {
      hint: `Answer with: uwf thread resume ${id} -p "<your answer>"`,
    });
  }
  if (info.kind === "question") return planAnswer(router, pointer, info, answer);
  // The step that failed or was stopped runs again; a failed poke's replaces the head.
  const prompt = withNote(info.prompt ?? info.reason, answer, "Note from a human");
  return rerunStep(router, pointer, info, prompt);
}

/**
 * The role that asked runs again where it ran, with the instruction it was given, its question
 * and the answer: its history starts at its own last step, so without them it would lose the
 * task it was in the middle of (e.g. a developer asking about a branch would lose the plan).
 */
async function planAnswer(
  router: Router,
  pointer: ThreadPointer,
  info: SuspendInfo,
  answer: string | null,
): Promise<PlannedStep> {
  const head = await router.headStep(pointer);
  const asked = head?.role === info.role ? head : null;
  const question = `The thread was suspended with this question:\n${info.reason}`;
  const prompt = asked ? `${asked.edgePrompt.trimEnd()}\n\n## Question\n${question}` : question;
  return {
    role: info.role,
    prompt: withNote(prompt, answer, ANSWER_NOTE),
    location: info.location ?? asked?.cwd ?? null,
    prev: prevOf(pointer),
    replaceHead: false,
  };
}

/** The heading an answer given with `thread resume -p` has in the edge prompt it goes with. */
export const ANSWER_NOTE = "Answer from a human";

function withNote(prompt: string, note: string | null, heading: string): string {
  return note === null ? prompt : `${prompt}\n\n## ${heading}\n${note}`;
}

/** Resuming a thread a workflow guard stopped goes past that guard for this run. */
export function liftedGuardOf(pointer: ThreadPointer): LiftedGuard | undefined {
  const info = pointer.suspended;
  if (pointer.status !== "suspended" || info?.kind !== "guard" || info.guard === undefined) {
    return undefined;
  }
  return { guard: info.guard, role: info.role };
}

/**
 * `thread poke`: the head's role runs again with more instructions, and its step replaces the
 * head (following the head's own `prev`).
 */
export async function planPoke(
  router: Router,
  pointer: ThreadPointer,
  instructions: string,
): Promise<PlannedStep> {
  if (pointer.status === "cancelled") {
    throw new UwfError(
      "THREAD_STATE",
      `thread ${pointer.thread} is cancelled; nothing runs on it`,
      {
        hint: cancelledHint(pointer),
      },
    );
  }
  const head = await router.headStep(pointer);
  if (!head) {
    throw new UwfError("THREAD_STATE", `thread ${pointer.thread} has no step to poke yet`, {
      hint: `Run its first step with: uwf thread exec ${pointer.thread}`,
    });
  }
  // A rebased thread's head may still be a recorded step it shares: a step replacing it would
  // belong to neither workflow's part of the chain.
  if (head.start !== pointer.start) {
    throw new UwfError(
      "THREAD_STATE",
      `the head of thread ${pointer.thread} is a step it shares with the thread it was rebased from; it cannot be poked here`,
      {
        hint: `Run the rebased thread's next step with \`uwf thread exec ${pointer.thread}\`, or poke the recorded thread${pointer.rebasedFrom ? ` (${pointer.rebasedFrom.thread})` : ""}.`,
      },
    );
  }
  return {
    role: head.role,
    prompt: `${head.edgePrompt}\n\n## Additional instructions\n${instructions}`,
    location: head.cwd,
    prev: head.prev,
    replaceHead: true,
  };
}

/**
 * The step a thread suspended after transient agent failures runs again, and from when; null
 * for a thread in any other state (exec then runs as without --wait).
 */
export async function retryWait(
  router: Router,
  pointer: ThreadPointer,
): Promise<{ retryAfter: string; plan: PlannedStep } | null> {
  const info = pointer.suspended;
  if (pointer.status !== "suspended" || info?.kind !== "retry") return null;
  const retryAfter = info.retryAfter ?? isoTime(0);
  // A poke that failed transiently replaces the head when it runs again.
  return { retryAfter, plan: await rerunStep(router, pointer, info, info.prompt ?? info.reason) };
}

/** The failed step a fan-out's child suspended on, to run again; null when it did not fail. */
export async function childRetryPlan(
  router: Router,
  child: ThreadPointer,
): Promise<PlannedStep | null> {
  const info = child.suspended;
  if (child.status !== "suspended" || !info) return null;
  // A nested fan-out resumed runs its own failed children again.
  const again = ["failure", "retry", "budget", "fanout"];
  if (!again.includes(info.kind)) return null;
  // A routing failure after a good step has nothing to re-run: the thread stays as it is.
  if (info.prompt === undefined) return null;
  // A child's failed poke replaces the child's head again.
  return rerunStep(router, child, info, info.prompt);
}
