import {
  END,
  type RebaseChange,
  type RebaseRoute,
  type RolePayload,
  START,
  type StartPayload,
  type StepPayload,
  SUSPEND,
  startNodeKind,
  type ThreadParent,
  type ThreadPointer,
  type ThreadRebasePlan,
  type ThreadWorktree,
  type WorkflowPayload,
} from "@united-workforce/protocol";
import type { Cas, Store, ThreadsStore } from "@united-workforce/store";
import { canonicalJson, errorMessage, isoTime, newUlid } from "@united-workforce/util";
import { evaluate, startOutput } from "../moderator/evaluate.js";
import { childThreadId } from "../steps/fanout/children.js";
import { titleFromText } from "../threads/title.js";
import { type RecordedStep, readRecordedSteps } from "./chain.js";
import type { RerouteWorkflow } from "./reroute.js";

export interface RebaseSource {
  cas: Cas;
  threads: Pick<ThreadsStore, "get">;
}

/** A workflow's graph, and the thread's inputs when that workflow renders edge prompts with them. */
interface Routing {
  workflow: WorkflowPayload;
  inputs: Record<string, unknown> | undefined;
}

/**
 * What rebasing a thread onto another workflow would reuse (DESIGN §15: derived from history
 * alone). A step is reused while its key is unchanged: the definition of its role (the role's
 * payload, schema hash included, in both workflows), the edge that led into it (target, rendered
 * prompt and location, from the same parent output under both graphs), and its parent (every
 * step before it reused). The first step whose key changed is where the rebased thread parts
 * from the recorded one; with every step reused, the route from the head is compared too, so a
 * thread the new graph sends on elsewhere after its last step parts there. Writes nothing.
 */
export async function planRebase(
  store: RebaseSource,
  thread: string,
  workflow: RerouteWorkflow,
): Promise<ThreadRebasePlan> {
  const { cas } = store;
  const pointer = await store.threads.get(thread);
  const pinned = await cas.getPayload<WorkflowPayload>(pointer.workflowHash, "workflow");
  const start = await cas.getPayload<StartPayload>(pointer.start, "start");
  const chain = await readRecordedSteps(cas, pointer.head === pointer.start ? null : pointer.head);
  const routingOf = (w: WorkflowPayload): Routing => ({
    workflow: w,
    inputs: w.inputs === undefined ? undefined : (start.inputs ?? {}),
  });
  const recorded = routingOf(pinned);
  const rebased = routingOf(workflow.payload);

  const plan: ThreadRebasePlan = {
    thread: pointer.thread,
    pinned: { name: pinned.name, hash: pointer.workflowHash },
    workflow: { name: workflow.payload.name, hash: workflow.hash },
    sameWorkflow: workflow.hash === pointer.workflowHash,
    steps: chain.length,
    reused: [],
    firstChange: null,
  };
  if (plan.sameWorkflow) {
    plan.reused = chain.map(({ hash, step }, index) => ({
      step: index + 1,
      hash,
      role: step.role,
    }));
    return plan;
  }
  for (let index = 0; index <= chain.length; index++) {
    const parent = index === 0 ? null : chain[index - 1]!;
    const current = chain[index];
    const change = stepChange(recorded, rebased, parent, current, index + 1);
    if (change !== null) {
      plan.firstChange = change;
      break;
    }
    if (current !== undefined) {
      plan.reused.push({ step: index + 1, hash: current.hash, role: current.step.role });
    }
  }
  return plan;
}

/**
 * Why the step at `number` (or, past the head, the route from the head) has another key under
 * the rebased workflow; null when it has the same.
 */
function stepChange(
  recorded: Routing,
  rebased: Routing,
  parent: RecordedStep | null,
  current: RecordedStep | undefined,
  number: number,
): RebaseChange | null {
  const from = parent === null ? START : parent.step.role;
  const before = edgeInto(recorded, parent, current !== undefined);
  const after = edgeInto(rebased, parent, current !== undefined);
  const sameRoute = canonicalJson(before) === canonicalJson(after);
  const role = current?.step.role ?? null;
  const roleFields = role === null ? [] : changedFields(recorded, rebased, role);
  if (sameRoute && roleFields.length === 0) return null;
  return {
    step: number,
    hash: current?.hash ?? null,
    role,
    from,
    roleChange: roleFields.length === 0 ? null : { role: role!, fields: roleFields },
    routeChange: sameRoute
      ? null
      : {
          recorded: before,
          rebased: after,
          diff: lineDiff(before.prompt ?? "", after.prompt ?? ""),
        },
  };
}

/**
 * The edge a graph takes into a step from its parent (the StartNode when null). A step after a
 * route to `$END` is a completed thread's restart, which takes `$START.resume`.
 */
function edgeInto(routing: Routing, parent: RecordedStep | null, followed: boolean): RebaseRoute {
  const routed = route(routing, parent === null ? START : parent.step.role, parent?.output);
  if (followed && parent !== null && routed.target === END) {
    return route(routing, START, startOutput("resume"));
  }
  return routed;
}

/** Where `routing` sends the thread after `role` answered `output`: a fan-out with its spec. */
function route(
  routing: Routing,
  role: string,
  output: Record<string, unknown> = startOutput("new"),
): RebaseRoute {
  try {
    const next = evaluate(routing.workflow.graph, role, output, routing.inputs);
    if (next.kind === "fanout") {
      const { template: prompt, fanout } = next;
      return { target: next.role, prompt, location: null, fanout, error: null };
    }
    const target = next.kind === "next" ? next.role : next.kind === "end" ? END : SUSPEND;
    const location = next.kind === "next" ? next.location : null;
    return { target, prompt: next.prompt, location, fanout: null, error: null };
  } catch (error) {
    return { target: null, prompt: null, location: null, fanout: null, error: errorMessage(error) };
  }
}

/** The fields of `role` whose definition differs between the two workflows (`(removed)`). */
function changedFields(recorded: Routing, rebased: Routing, role: string): string[] {
  const before = recorded.workflow.roles[role];
  const after = Object.hasOwn(rebased.workflow.roles, role)
    ? rebased.workflow.roles[role]
    : undefined;
  if (after === undefined) return ["(removed)"];
  if (before === undefined) return ["(added)"];
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys]
    .filter((key) => {
      const a = before[key as keyof RolePayload];
      const b = after[key as keyof RolePayload];
      return canonicalJson(a ?? null) !== canonicalJson(b ?? null);
    })
    .sort();
}

/**
 * The lines that differ between two texts, `-` before and `+` after, with the common leading
 * and trailing lines left out: enough to see what an edit of a prompt changed.
 */
export function lineDiff(before: string, after: string): string[] {
  if (before === after) return [];
  const a = before.split("\n");
  const b = after.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) {
    tail++;
  }
  return [
    ...a.slice(head, a.length - tail).map((line) => `- ${line}`),
    ...b.slice(head, b.length - tail).map((line) => `+ ${line}`),
  ];
}

/**
 * Write the thread a plan makes. It shares the reused steps as they are (their hashes kept):
 * its StartNode pins the rebased workflow, with the recorded one's prompt, cwd, inputs and time
 * (so rebasing twice onto one workflow gives the same node), and, when steps are reused, names
 * the last of them and its start (`rebase: { start, at }`); the new thread's head is that step,
 * and its next step links to it with the new start, like a fork (`step fork`) that changes the
 * workflow there. With nothing reused it is a StartNode of its own. No agent runs; the recorded
 * thread is left as it is. The workflow must be stored.
 */
export async function writeRebase(
  store: Pick<Store, "cas" | "threads">,
  plan: ThreadRebasePlan,
  options: RebaseWriteOptions = {},
): Promise<RebasedThread> {
  const pointer = await writeRebasedThread(store, plan, options);
  const children = await rebaseChildren(store, plan, pointer, options);
  return { pointer, children };
}

export interface RebaseWriteOptions {
  nowMs?: number;
  /** The rebased thread's own git worktree, for a recorded thread that has one. */
  forkWorktree?(thread: string, recorded: ThreadPointer): { worktree: ThreadWorktree; cwd: string };
}

/** The rebased thread as written, and the fan-out children rebased with it. */
export interface RebasedThread {
  pointer: ThreadPointer;
  /** Each recorded child rebased under the edited child workflow (nested ones too). */
  children: RebasedChild[];
}

export interface RebasedChild {
  thread: string;
  /** The recorded child it was rebased from. */
  from: string;
  workflow: string;
  /** How many of the recorded child's steps it shares. */
  reused: number;
  /** The first of its steps whose key changed (null: none). */
  firstChange: number | null;
}

async function writeRebasedThread(
  store: Pick<Store, "cas" | "threads">,
  plan: ThreadRebasePlan,
  options: RebaseWriteOptions & {
    /** A fan-out child's: its id, derived from its new parent, and that parent. */
    child?: { thread: string; parent: ThreadParent };
  },
): Promise<ThreadPointer> {
  const nowMs = options.nowMs ?? Date.now();
  const { cas } = store;
  const recorded = await store.threads.get(plan.thread);
  const start = await cas.getPayload<StartPayload>(recorded.start, "start");
  const workflow = await cas.getPayload<WorkflowPayload>(plan.workflow.hash, "workflow");
  const startPayload: StartPayload = {
    workflow: plan.workflow.hash,
    prompt: start.prompt,
    cwd: start.cwd,
    createdAtMs: start.createdAtMs,
  };
  if (workflow.inputs !== undefined) startPayload.inputs = start.inputs ?? {};
  const last = plan.reused.at(-1);
  let currentRole: string | null = null;
  if (last !== undefined) {
    const step = await cas.getPayload<StepPayload>(last.hash, "step");
    startPayload.rebase = { start: step.start, at: last.hash };
    currentRole = step.role;
  }
  const newStart = await cas.put(cas.builtin(startNodeKind(startPayload)), startPayload);
  const title = recorded.title ?? (titleFromText(start.prompt) || workflow.name);
  const pointer: ThreadPointer = {
    thread: options.child?.thread ?? newUlid(nowMs),
    workflow: workflow.name,
    workflowHash: plan.workflow.hash,
    start: newStart,
    head: last?.hash ?? newStart,
    status: "idle",
    currentRole,
    suspended: null,
    steps: plan.reused.length,
    cwd: recorded.cwd,
    createdAt: isoTime(nowMs),
    updatedAt: isoTime(nowMs),
    title: title.endsWith(" (rebased)") ? title : `${title} (rebased)`,
    rebasedFrom: { thread: recorded.thread, step: last?.hash ?? recorded.start },
  };
  if (options.child !== undefined) pointer.parent = options.child.parent;
  if (recorded.agent !== undefined) pointer.agent = recorded.agent;
  if (recorded.worktree !== undefined && options.forkWorktree !== undefined) {
    const made = options.forkWorktree(pointer.thread, recorded);
    pointer.worktree = made.worktree;
    pointer.cwd = made.cwd;
  }
  return store.threads.create(pointer);
}

/**
 * Whether a rebase that parts at `change` takes the recorded fan-out children along (rebased
 * under the edited child workflow): the change is a fan-out edge whose only difference is its
 * child workflow, the join role unchanged.
 */
export function rebasesFanoutChildren(change: RebaseChange | null): boolean {
  if (change === null || change.roleChange !== null || change.routeChange === null) return false;
  const { recorded: before, rebased: after } = change.routeChange;
  if (before.fanout === null || after.fanout === null) return false;
  return (
    canonicalJson({ ...before, fanout: { ...before.fanout, workflow: null } }) ===
    canonicalJson({ ...after, fanout: { ...after.fanout, workflow: null } })
  );
}

/**
 * When the rebased thread parts at a fan-out whose only change is its child workflow, its
 * recorded children are rebased too, under the edited child workflow: each as the child the new
 * thread's fan-out will look for (the id derived from the new parent, the same step and item),
 * sharing the child's unchanged steps. The fan-out then runs them on from there and joins them
 * instead of making children afresh. Nested fan-outs go the same way. Nothing else is rebased:
 * another change of the edge (its items, prompt, `over`, rules) or of the join role runs the
 * fan-out afresh.
 */
async function rebaseChildren(
  store: Pick<Store, "cas" | "threads">,
  plan: ThreadRebasePlan,
  rebased: ThreadPointer,
  options: RebaseWriteOptions,
): Promise<RebasedChild[]> {
  if (!rebasesFanoutChildren(plan.firstChange)) return [];
  const { cas } = store;
  const recorded = await store.threads.get(plan.thread);
  const start = await cas.getPayload<StartPayload>(rebased.start, "start");
  const workflow = await cas.getPayload<WorkflowPayload>(plan.workflow.hash, "workflow");
  const inputs = workflow.inputs === undefined ? undefined : (start.inputs ?? {});
  // The step the fan-out hangs off: the last reused one (the head of both), or the start.
  const last = plan.reused.at(-1);
  let transition: ReturnType<typeof evaluate>;
  let timeMs = start.createdAtMs;
  if (last === undefined) {
    transition = evaluate(workflow.graph, START, startOutput("new"), inputs);
  } else {
    const step = await cas.getPayload<StepPayload>(last.hash, "step");
    const output = await cas.getPayload<Record<string, unknown>>(step.output);
    transition = evaluate(workflow.graph, step.role, output, inputs);
    timeMs = step.completedAtMs;
  }
  if (transition.kind !== "fanout") return [];
  const childWorkflow = {
    hash: transition.fanout.workflow,
    payload: await cas.getPayload<WorkflowPayload>(transition.fanout.workflow, "workflow"),
  };
  const recordedHead = last?.hash ?? recorded.start;
  const children: RebasedChild[] = [];
  for (let index = 0; index < transition.items.length; index++) {
    const from = childThreadId(recorded.thread, recordedHead, index, timeMs);
    if (!(await store.threads.exists(from))) continue;
    const childPlan = await planRebase(store, from, childWorkflow);
    const thread = childThreadId(rebased.thread, rebased.head, index, timeMs);
    const child = {
      thread,
      parent: { thread: rebased.thread, step: rebased.head, index },
    };
    const pointer = await writeRebasedThread(store, childPlan, { ...options, child });
    children.push({
      thread,
      from,
      workflow: childWorkflow.hash,
      reused: childPlan.reused.length,
      firstChange: childPlan.firstChange?.step ?? null,
    });
    children.push(...(await rebaseChildren(store, childPlan, pointer, options)));
  }
  return children;
}
