import {
  isPlainObject,
  type JsonSchema,
  type JsonValue,
  type StartPayload,
  type ThreadPointer,
  type WorkflowPayload,
} from "@united-workforce/protocol";
import {
  errorMessage,
  hashBytes,
  isUwfError,
  UwfError,
  ulidTimePart,
} from "@united-workforce/util";
import type { FanoutTransition } from "../../moderator/evaluate.js";
import { createThread } from "../../threads/new-thread.js";
import { titleFromItem } from "../../threads/title.js";
import { ensureChildWorktree, type WorktreePlace } from "../../worktrees/git-worktree.js";
import {
  isLiteralLocation,
  leavesThread,
  RENDERED_LOCATION_HINT,
  type RunContext,
  stepCwd,
} from "../context.js";
import { type Child, standing } from "./child-standing.js";

/** What finding a fan-out's children reads: the store and the moderator's reader. */
type Run = Pick<RunContext, "store" | "router">;

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

/** The children of the fan-out a thread's head leads to, made or not yet. */
export interface FanoutChildren {
  role: string;
  children: { index: number; thread: string; pointer: ThreadPointer | null }[];
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

/**
 * Each item's child, found by its derived id or made now, with where it stands for this exec;
 * or, with the children made so far, why they cannot all be made (an item that does not fit
 * the child workflow's inputs, a worktree git refused): the parent's join step then fails.
 */
export async function makeChildren(
  run: RunContext,
  pointer: ThreadPointer,
  transition: FanoutTransition,
  childWorkflow: WorkflowPayload,
  retryFailed: boolean,
): Promise<{ children: Child[]; problem: string | null }> {
  const { timeMs } = await origin(run, pointer);
  const children: Child[] = [];
  let inputs: (Record<string, JsonValue> | undefined)[];
  try {
    inputs = await childInputs(run, childWorkflow, transition);
  } catch (error) {
    return { children, problem: errorMessage(error) };
  }
  const place = childWorkflow.worktree === true ? await worktreePlace(run) : null;
  const confined = await confinedLocations(run, pointer, transition, childWorkflow);
  for (const [index, item] of transition.items.entries()) {
    const outside = confined(item.location);
    if (outside !== null) {
      return {
        children,
        problem: `child ${index} of the fan-out to role "${transition.role}" would run commands (workflow "${childWorkflow.name}" has run: roles) in ${JSON.stringify(item.location)}, rendered from the item, which leads out of the thread's directory ${pointer.cwd} (to ${outside}). ${RENDERED_LOCATION_HINT}`,
      };
    }
    const thread = childThreadId(pointer.thread, pointer.head, index, timeMs);
    let child: ThreadPointer;
    try {
      child = await ensureChild(run, pointer, {
        thread,
        index,
        workflow: childWorkflow,
        workflowHash: transition.fanout.workflow,
        prompt: item.prompt,
        title: titleFromItem(item.item, item.prompt, index),
        cwd: stepCwd(pointer, item.location),
        inputs: inputs[index],
        timeMs,
        place,
      });
    } catch (error) {
      if (!isUwfError(error) || error.code !== "WORKTREE_FAILED") throw error;
      const hint = error.hint === null ? "" : ` ${error.hint}`;
      return {
        children,
        problem: `child ${index} of the fan-out to role "${transition.role}" gets its own git worktree (workflow "${childWorkflow.name}" says worktree: true), which could not be made: ${error.message}.${hint} Then run \`uwf thread resume ${pointer.thread}\`.`,
      };
    }
    children.push({ index, item: item.item, thread, ...standing(child, retryFailed) });
  }
  return { children, problem: null };
}

/**
 * Where a child may not run, by its location: outside the parent's directory, when the child
 * workflow runs commands and the fan-out edge renders the location (see `leavesThread`).
 */
async function confinedLocations(
  run: RunContext,
  pointer: ThreadPointer,
  transition: FanoutTransition,
  childWorkflow: WorkflowPayload,
): Promise<(location: string | null) => string | null> {
  const runsCommands = Object.values(childWorkflow.roles).some((role) => role.run !== undefined);
  if (!runsCommands) return () => null;
  const workflow = await run.router.workflow(pointer.workflowHash);
  return (location) =>
    location === null || isLiteralLocation(workflow, transition.role, location)
      ? null
      : leavesThread(pointer.cwd, stepCwd(pointer, location));
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
  const { checkThreadInputs } = await import("../../threads/inputs.js");
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
    title: string;
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
      title: spec.title,
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
      title: spec.title,
      ...(made && { worktree: made.worktree.path, branch: made.worktree.branch }),
    });
    return created;
  } catch (error) {
    if (isUwfError(error) && error.code === "THREAD_EXISTS") return store.threads.get(spec.thread);
    throw error;
  }
}

/** Where this machine puts worktrees: config.yaml's `worktrees.dir`, or UWF_HOME. */
async function worktreePlace(run: RunContext): Promise<WorktreePlace> {
  const dir = (await run.config()).worktrees?.dir;
  const place: WorktreePlace = { home: run.store.home, env: run.env };
  if (typeof dir === "string") place.dir = dir;
  return place;
}
