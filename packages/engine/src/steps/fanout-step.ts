import {
  type FanoutFailureRule,
  isPlainObject,
  type JsonSchema,
  type JsonValue,
  STATUS_FIELD,
  type StartPayload,
  type StepPayload,
  type ThreadPointer,
  type WorkflowPayload,
} from "@united-workforce/protocol";
import {
  errorMessage,
  hashBytes,
  isUwfError,
  sanitizeTerminalText,
  UwfError,
  ulidTimePart,
} from "@united-workforce/util";
import type { FanoutTransition } from "../moderator/evaluate.js";
import { createThread } from "../threads/new-thread.js";
import { ensureChildWorktree, type WorktreePlace } from "../worktrees/git-worktree.js";
import { type RunContext, stepCwd } from "./context.js";
import { outputProblems, storeDirectStep } from "./direct-step.js";
import type { StepOutcome } from "./outcome.js";
import { type PlannedStep, prevOf } from "./planned-step.js";

/** The `agent` recorded on a join step: uwf wrote it from the children's results. */
export const JOIN_AGENT = "join";
/** How many children run at once when the fan-out does not say. */
export const DEFAULT_CONCURRENCY = 4;
/**
 * At most this many steps per child per exec of the parent: a child that loops is left idle
 * (and reported as waiting) instead of running for ever inside one exec.
 */
export const CHILD_STEP_LIMIT = 100;

/** Where a child stands for its fan-out. */
export type ChildOutcome = "completed" | "failed" | "waiting" | "pending";

/** One child of a fan-out, as the exec document and the parent's suspension report it. */
export interface FanoutChildReport {
  index: number;
  thread: string;
  status: ChildOutcome;
  /** The child's role the reason is about, when it failed or waits. */
  role?: string;
  /** Why it failed or waits. */
  reason?: string;
}

/** What one fan-out did: its children as they stand now, and the join role. */
export interface FanoutReport {
  role: string;
  children: FanoutChildReport[];
  completed: number;
  failed: number;
  waiting: number;
}

/**
 * What a fan-out came to: the join step written (`joined`), or the parent waiting (its children
 * cannot all end yet, or the join was refused), as an outcome the runner applies to the parent;
 * or the run interrupted while children ran (`stopped`: nothing to apply).
 */
export type FanoutResult =
  | {
      kind: "outcome";
      outcome: StepOutcome;
      /** The step the outcome runs: the join role, with the fan-out edge's template. */
      plan: PlannedStep;
      /** Why the parent waits (its children, what to do), or the join's counts. */
      message: string;
      /** A child failed, or the join failed: the run's exit code is a failed step's. */
      failed: boolean;
      joined: { completed: number; failed: number } | null;
      report: FanoutReport;
    }
  | { kind: "stopped"; message: string; report: FanoutReport };

/**
 * Run one child of a fan-out until it completes or stops, under its own lease (the runner's
 * loop, handed in: a step kind never runs the loop itself). `retryFailed`: `thread resume` of
 * the parent, so a child that failed runs its failed step again. "busy": another process runs it.
 */
export type ChildRunner = (
  child: string,
  retryFailed: boolean,
) => Promise<{ stoppedBecause: string; pointer: ThreadPointer } | "busy">;

/**
 * A child's thread id, derived (never random) from the parent, the parent's step whose route
 * fanned out and the item's index, so a re-run after a crash finds the children it made. A
 * valid ULID: its time part is `timeMs + index` (`timeMs`: when that step completed), its
 * 80-bit rest a hash. One millisecond per item gives each child its own first ten characters,
 * the part progress lines and tables show, and lists them in item order.
 */
export function childThreadId(parent: string, step: string, index: number, timeMs: number): string {
  const key = `${parent}/${step}/${index}`;
  return `${ulidTimePart(timeMs + index)}${hashBytes(key).slice(-8)}${hashBytes(`${key}/2`).slice(-8)}`;
}

/** The step a fan-out hangs off (the head) and its time, from which children ids derive. */
async function origin(run: Run, pointer: ThreadPointer): Promise<{ timeMs: number }> {
  const head = await run.router.headStep(pointer);
  if (head !== null) return { timeMs: head.completedAtMs };
  const start = await run.store.cas.getPayload<StartPayload>(pointer.start, "start");
  return { timeMs: start.createdAtMs };
}

/**
 * The children of the fan-out the thread's head leads to (created or not yet), or null when
 * its head does not fan out. For `thread show` and `thread cancel`.
 */
export async function fanoutChildren(
  run: Run,
  pointer: ThreadPointer,
): Promise<FanoutChildren | null> {
  let next: Awaited<ReturnType<RunContext["router"]["route"]>>;
  try {
    next = await run.router.route(pointer);
  } catch {
    return null;
  }
  if (next.kind !== "fanout") return null;
  const { timeMs } = await origin(run, pointer);
  const children = [];
  for (let index = 0; index < next.items.length; index++) {
    const thread = childThreadId(pointer.thread, pointer.head, index, timeMs);
    const child = (await run.store.threads.exists(thread))
      ? await run.store.threads.get(thread)
      : null;
    children.push({ index, thread, pointer: child });
  }
  return { role: next.role, children };
}

/** The children of the fan-out a thread's head leads to, made or not yet. */
export interface FanoutChildren {
  role: string;
  children: { index: number; thread: string; pointer: ThreadPointer | null }[];
}

/** What a fan-out reads: the store and the moderator's reader. */
type Run = Pick<RunContext, "store" | "router">;

interface Child {
  index: number;
  item: unknown;
  thread: string;
  outcome: ChildOutcome;
  /** Why a waiting child waits: its suspend kind. */
  kind?: string;
  role?: string;
  reason?: string;
}

export interface FanoutOptions {
  /**
   * `thread resume` of the parent: children that failed run their failed step again, and
   * those a budget stopped run the step it stopped before.
   */
  retryFailed: boolean;
  /** Runs one child (the runner's loop, with the parent run's agent, limits and budget). */
  runChild: ChildRunner;
}

/**
 * Run a fan-out: make each item's child thread (if it is not there yet), run the children that
 * can run, at most `concurrency` at once, each under its own lease until it completes or stops,
 * then either write the join step (every child ended as the failure rule allows) or suspend the
 * parent saying which children failed or wait. The caller holds the parent's lease.
 */
export async function runFanout(
  run: RunContext,
  pointer: ThreadPointer,
  transition: FanoutTransition,
  options: FanoutOptions,
): Promise<FanoutResult> {
  const workflow = await run.router.workflow(pointer.workflowHash);
  const joinRole = workflow.roles[transition.role];
  if (joinRole?.join !== true) {
    throw new UwfError(
      "WORKFLOW_INVALID",
      `workflow "${workflow.name}" fans out into role "${transition.role}", which is not a join role`,
      { hint: "A fan-out edge's role must be declared with `join: true`." },
    );
  }
  const childWorkflow = await run.router.workflow(transition.fanout.workflow);
  const failure: FanoutFailureRule = transition.fanout.failure ?? "all";
  const concurrency = transition.fanout.concurrency ?? DEFAULT_CONCURRENCY;
  const { timeMs } = await origin(run, pointer);
  const emptyReport = (): FanoutReport => report(transition.role, []);

  let inputs: (Record<string, JsonValue> | undefined)[];
  try {
    inputs = await childInputs(run, childWorkflow, transition);
  } catch (error) {
    return joinFailure(pointer, transition, errorMessage(error), emptyReport());
  }

  const children: Child[] = [];
  const place = childWorkflow.worktree === true ? await worktreePlace(run) : null;
  for (const [index, item] of transition.items.entries()) {
    const thread = childThreadId(pointer.thread, pointer.head, index, timeMs);
    let child: ThreadPointer;
    try {
      child = await ensureChild(run, pointer, {
        thread,
        index,
        workflow: childWorkflow,
        workflowHash: transition.fanout.workflow,
        prompt: item.prompt,
        cwd: stepCwd(pointer, item.location),
        inputs: inputs[index],
        timeMs,
        place,
      });
    } catch (error) {
      if (!isUwfError(error) || error.code !== "WORKTREE_FAILED") throw error;
      const hint = error.hint === null ? "" : ` ${error.hint}`;
      return joinFailure(
        pointer,
        transition,
        `child ${index} of the fan-out to role "${transition.role}" gets its own git worktree (workflow "${childWorkflow.name}" says worktree: true), which could not be made: ${error.message}.${hint} Then run \`uwf thread resume ${pointer.thread}\`.`,
        report(transition.role, children),
      );
    }
    children.push({ index, item: item.item, thread, ...standing(child, options.retryFailed) });
  }

  run.events.emit("fanout.started", {
    thread: pointer.thread,
    role: transition.role,
    children: children.length,
    concurrency,
    failure,
  });

  const queue = children.filter((c) => c.outcome === "pending");
  const stopLaunching = () =>
    run.signal.aborted || (failure === "all" && children.some((c) => c.outcome === "failed"));
  const worker = async (): Promise<void> => {
    for (let child = queue.shift(); child !== undefined; child = queue.shift()) {
      if (stopLaunching()) return;
      // Never throws: a worker that threw would leave the others running after exec returned.
      let ended: Awaited<ReturnType<typeof runChild>>;
      try {
        ended = await runChild(pointer, child, options);
      } catch (error) {
        ended = { outcome: "failed", reason: errorMessage(error) };
      }
      Object.assign(child, ended);
      run.events.emit("fanout.child", {
        thread: pointer.thread,
        child: child.thread,
        index: child.index,
        status: child.outcome,
        ...(child.reason === undefined ? {} : { reason: firstLine(child.reason) }),
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, () => worker()));

  const summary = report(transition.role, children);
  if (run.signal.aborted) {
    return {
      kind: "stopped",
      message: `interrupted while the fan-out to role "${transition.role}" ran; run \`uwf thread exec ${pointer.thread}\` to go on (children that completed are kept)`,
      report: summary,
    };
  }
  const blocking = blockingChildren(children, failure);
  if (blocking !== null) {
    const reason = fanoutWaitReason(pointer.thread, transition.role, children, blocking);
    return {
      kind: "outcome",
      outcome: {
        kind: "waits",
        suspend: {
          role: transition.role,
          reason,
          kind: "fanout",
          prompt: transition.template,
          location: null,
        },
      },
      plan: joinPlan(pointer, transition),
      message: reason,
      failed: children.some((c) => c.outcome === "failed"),
      joined: null,
      report: summary,
    };
  }
  return join(run, pointer, transition, children, summary);
}

/** Why the join cannot be written yet, or null when it can. */
function blockingChildren(children: Child[], failure: FanoutFailureRule): string | null {
  const waiting = children.filter((c) => c.outcome === "waiting" || c.outcome === "pending");
  const failed = children.filter((c) => c.outcome === "failed");
  const completed = children.filter((c) => c.outcome === "completed");
  if (failure === "all" && failed.length > 0) {
    return `${count(failed.length, "child")} failed (failure: all needs every child to complete)`;
  }
  if (waiting.length > 0) return `${count(waiting.length, "child")} did not end yet`;
  if (failure === "any" && children.length > 0 && completed.length === 0) {
    return "no child completed (failure: any needs one to)";
  }
  return null;
}

function fanoutWaitReason(parent: string, role: string, children: Child[], why: string): string {
  const shown = children.filter((c) => c.outcome !== "completed");
  const lines = [`the fan-out to role "${role}" cannot join: ${why}.`];
  for (const c of shown.slice(0, 10)) {
    const what =
      c.outcome === "pending"
        ? "not run yet"
        : `${c.outcome}${c.role ? ` at role "${c.role}"` : ""}: ${firstLine(c.reason ?? "")}`;
    lines.push(`  child ${c.thread} (item ${c.index}) ${what}`);
  }
  if (shown.length > 10) lines.push(`  … and ${shown.length - 10} more`);
  const how: string[] = [];
  if (children.some((c) => c.outcome === "failed")) {
    how.push(`uwf thread resume ${parent} re-runs the failed children's failed steps and goes on`);
  }
  if (children.some((c) => c.kind === "budget")) {
    how.push(
      `uwf thread resume ${parent} runs the children this run's budget stopped, with a new budget`,
    );
  }
  if (children.some((c) => c.outcome === "waiting" && c.kind !== "budget")) {
    how.push(
      `answer or resume a waiting child on its own (uwf thread show <child> says how), then uwf thread exec ${parent}`,
    );
  }
  if (children.some((c) => c.outcome === "pending") && how.length === 0) {
    how.push(`uwf thread exec ${parent} runs them`);
  }
  lines.push(`To continue: ${how.join("; or ")}.`);
  return lines.join("\n");
}

/** A child's standing before this exec runs it: ended, or to run (`pending`). */
function standing(
  child: ThreadPointer,
  retryFailed: boolean,
): Pick<Child, "outcome" | "role" | "reason" | "kind"> {
  const info = child.suspended;
  switch (child.status) {
    case "completed":
      return { outcome: "completed" };
    case "cancelled":
      return { outcome: "failed", reason: "the child thread was cancelled" };
    case "idle":
      return { outcome: "pending" };
    default: {
      if (!info) return { outcome: "pending" };
      const failedKind = info.kind === "failure" || info.kind === "retry";
      if ((failedKind || info.kind === "budget") && retryFailed) return { outcome: "pending" };
      if (failedKind) return { outcome: "failed", role: info.role, reason: info.reason };
      // A nested fan-out goes on like the parent's own.
      if (info.kind === "fanout") return { outcome: "pending" };
      return {
        outcome: "waiting",
        kind: info.kind,
        role: info.role,
        reason: waitingWhy(info.kind, info.reason),
      };
    }
  }
}

function waitingWhy(kind: string, reason: string): string {
  if (kind === "human") return "waits for a human's answer";
  if (kind === "question") return `asks: ${reason}`;
  return `${kind}: ${reason}`;
}

/** Run one child until it completes or stops, and say where it ended. */
async function runChild(
  parent: ThreadPointer,
  child: Child,
  options: FanoutOptions,
): Promise<Pick<Child, "outcome" | "role" | "reason" | "kind">> {
  let ran: Awaited<ReturnType<ChildRunner>>;
  try {
    ran = await options.runChild(child.thread, options.retryFailed);
  } catch (error) {
    // E.g. no agent configured: the child did not move; it counts as failed for this exec.
    return { outcome: "failed", reason: errorMessage(error) };
  }
  if (ran === "busy") return { outcome: "waiting", reason: "another process is running it" };
  if (ran.stoppedBecause === "stopped") return { outcome: "waiting", reason: "interrupted" };
  const info = ran.pointer.suspended;
  if (ran.pointer.status === "suspended" && info?.kind === "fanout") {
    // A nested fan-out that cannot join: failed when one of its children failed.
    return {
      outcome: ran.stoppedBecause === "failed" ? "failed" : "waiting",
      kind: "fanout",
      role: info.role,
      reason: info.reason,
    };
  }
  const after = standing(ran.pointer, false);
  if (after.outcome === "pending") {
    return {
      outcome: "waiting",
      reason: `ran ${CHILD_STEP_LIMIT} steps in this exec without ending; uwf thread exec ${parent.thread} runs it on`,
    };
  }
  return after;
}

/** Each child's inputs when the child workflow declares some (the item, validated). */
async function childInputs(
  run: Run,
  childWorkflow: WorkflowPayload,
  transition: FanoutTransition,
): Promise<(Record<string, JsonValue> | undefined)[]> {
  if (childWorkflow.inputs === undefined) return transition.items.map(() => undefined);
  const schema = (await run.store.cas.get(childWorkflow.inputs)).payload as JsonSchema;
  const validate = run.store.cas.schemaValidator(schema).validate;
  const { checkThreadInputs } = await import("../threads/inputs.js");
  return transition.items.map(({ item }, index) => {
    if (!isPlainObject(item)) {
      throw new UwfError(
        "INPUT_INVALID",
        `item ${index} of the fan-out is ${JSON.stringify(item)}, but workflow "${childWorkflow.name}" declares inputs: each item must be a mapping of them`,
      );
    }
    const values = item as Record<string, JsonValue>;
    try {
      checkThreadInputs(childWorkflow.name, schema as never, values, validate);
    } catch (error) {
      throw new UwfError("INPUT_INVALID", `item ${index} of the fan-out: ${errorMessage(error)}`);
    }
    return values;
  });
}

/** The child's pointer: found by its derived id, else made now (create-if-absent). */
async function ensureChild(
  run: Pick<RunContext, "store" | "events">,
  parent: ThreadPointer,
  spec: {
    thread: string;
    index: number;
    workflow: WorkflowPayload;
    workflowHash: string;
    prompt: string;
    cwd: string;
    inputs: Record<string, JsonValue> | undefined;
    timeMs: number;
    /** Where the child's own git worktree goes, when its workflow says `worktree: true`. */
    place: WorktreePlace | null;
  },
): Promise<ThreadPointer> {
  const { store } = run;
  if (await store.threads.exists(spec.thread)) return store.threads.get(spec.thread);
  // The worktree first, found again (not made twice) when a crash came before the pointer.
  const made =
    spec.place === null ? null : ensureChildWorktree(spec.place, parent, spec.cwd, spec.thread);
  const cwd = made?.cwd ?? spec.cwd;
  try {
    // Deterministic: a StartNode written again after a crash has the same hash.
    const created = await createThread(store, {
      thread: spec.thread,
      workflow: spec.workflow.name,
      workflowHash: spec.workflowHash,
      prompt: spec.prompt,
      cwd,
      createdAtMs: spec.timeMs,
      ...(spec.inputs === undefined ? {} : { inputs: spec.inputs }),
      ...(made === null ? {} : { worktree: made.worktree }),
      parent: { thread: parent.thread, step: parent.head, index: spec.index },
    });
    run.events.emit("thread.start", {
      thread: spec.thread,
      workflow: spec.workflow.name,
      parent: parent.thread,
      index: spec.index,
      ...(made && { worktree: made.worktree.path, branch: made.worktree.branch }),
    });
    return created;
  } catch (error) {
    if (isUwfError(error) && error.code === "THREAD_EXISTS") return store.threads.get(spec.thread);
    throw error;
  }
}

/** Write the join step from the children's results, then route on from it. */
async function join(
  run: Run,
  pointer: ThreadPointer,
  transition: FanoutTransition,
  children: Child[],
  summary: FanoutReport,
): Promise<FanoutResult> {
  const started = Date.now();
  const results = [];
  for (const c of children) {
    const output = c.outcome === "completed" ? await lastOutput(run, c.thread) : null;
    results.push({
      index: c.index,
      item: c.item,
      thread: c.thread,
      status: c.outcome === "completed" ? "completed" : "failed",
      output,
      ...(c.outcome === "completed" ? {} : { reason: c.reason ?? "failed" }),
    });
  }
  const completed = results.filter((r) => r.status === "completed").length;
  const output: Record<string, unknown> = {
    [STATUS_FIELD]: completed === results.length ? "done" : "partial",
    results,
    completed,
    failed: results.length - completed,
  };
  const workflow = await run.router.workflow(pointer.workflowHash);
  const role = workflow.roles[transition.role]!;
  const problems = await outputProblems(run.store.cas, role.frontmatter, output);
  if (problems.length > 0) {
    return joinFailure(
      pointer,
      transition,
      `the join output uwf wrote from the children's results does not match role "${transition.role}"'s frontmatter schema: ${problems.join("; ")}. The join output is { $status: done|partial, results: [{ index, item, thread, status, output, reason? }], completed, failed }; declare those fields (or fewer, without additionalProperties: false) in the join role's schema.`,
      summary,
    );
  }
  const plan = joinPlan(pointer, transition);
  const verified = await storeDirectStep(run.store.cas, pointer, plan, role.frontmatter, {
    agent: JOIN_AGENT,
    output,
    body: joinBody(transition.role, results),
    assembledPrompt: transition.template,
    cwd: pointer.cwd,
    detail: { adapter: JOIN_AGENT, children: children.map((c) => c.thread) },
    startedAtMs: started,
  });
  const failed = results.length - completed;
  return {
    kind: "outcome",
    outcome: { kind: "stored", verified, agent: JOIN_AGENT, startedAtMs: started },
    plan,
    message: `joined ${count(results.length, "child")}: ${completed} completed, ${failed} failed`,
    failed: false,
    joined: { completed, failed },
    report: summary,
  };
}

/** The join step a fan-out writes, following the head, with the fan-out edge's template. */
function joinPlan(pointer: ThreadPointer, transition: FanoutTransition): PlannedStep {
  return {
    role: transition.role,
    prompt: transition.template,
    location: null,
    prev: prevOf(pointer),
    replaceHead: false,
  };
}

async function lastOutput(run: Run, thread: string): Promise<unknown> {
  const child = await run.store.threads.get(thread);
  if (child.head === child.start) return null;
  const head = await run.store.cas.getPayload<StepPayload>(child.head, "step");
  return run.store.cas.getPayload<unknown>(head.output);
}

function joinBody(
  role: string,
  results: { index: number; thread: string; status: string; output: unknown; reason?: string }[],
): string {
  const lines = [
    `Role "${role}" joined ${count(results.length, "child")}.`,
    "",
    "| # | thread | status | $status or reason |",
    "|---|--------|--------|-------------------|",
  ];
  for (const r of results) {
    const status =
      r.status === "completed"
        ? String((r.output as Record<string, unknown> | null)?.[STATUS_FIELD] ?? "")
        : firstLine(r.reason ?? "");
    lines.push(`| ${r.index} | ${r.thread} | ${r.status} | ${status.replaceAll("|", "\\|")} |`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The fan-out cannot go on (the children cannot be made, or the join does not fit its role):
 * the parent's join step fails, and `thread resume` tries it again once it is fixed.
 */
function joinFailure(
  pointer: ThreadPointer,
  transition: FanoutTransition,
  reason: string,
  summary: FanoutReport,
): FanoutResult {
  return {
    kind: "outcome",
    outcome: { kind: "failed", failure: new UwfError("AGENT_FAILED", reason) },
    plan: joinPlan(pointer, transition),
    message: reason,
    failed: true,
    joined: null,
    report: summary,
  };
}

function report(role: string, children: Child[]): FanoutReport {
  return {
    role,
    children: children.map((c) => ({
      index: c.index,
      thread: c.thread,
      status: c.outcome,
      ...(c.role === undefined ? {} : { role: c.role }),
      ...(c.reason === undefined ? {} : { reason: firstLine(c.reason) }),
    })),
    completed: children.filter((c) => c.outcome === "completed").length,
    failed: children.filter((c) => c.outcome === "failed").length,
    waiting: children.filter((c) => c.outcome === "waiting" || c.outcome === "pending").length,
  };
}

/** Where this machine puts worktrees: config.yaml's `worktrees.dir`, or UWF_HOME. */
async function worktreePlace(run: RunContext): Promise<WorktreePlace> {
  const dir = (await run.config()).worktrees?.dir;
  const place: WorktreePlace = { home: run.store.home, env: run.env };
  if (typeof dir === "string") place.dir = dir;
  return place;
}

function firstLine(text: string): string {
  return sanitizeTerminalText(text.split("\n")[0] ?? "").trim();
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : noun === "child" ? "ren" : "s"}`;
}
