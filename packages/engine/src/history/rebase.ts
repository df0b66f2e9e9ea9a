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
  stepNodeKind,
  type ThreadPointer,
  type ThreadRebasePlan,
  type ThreadWorktree,
  type WorkflowPayload,
} from "@united-workforce/protocol";
import type { Cas, Store, ThreadsStore } from "@united-workforce/store";
import { canonicalJson, errorMessage, isoTime, newUlid, UwfError } from "@united-workforce/util";
import { evaluate, startOutput } from "../moderator/evaluate.js";
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
  if (sameRoute && roleFields.length === 0) {
    // The step is the join of an unchanged fan-out: reusing it would need the children too.
    if (current !== undefined && before.fanout !== null) {
      throw new UwfError(
        "REBASE_UNSUPPORTED",
        `the edit changes neither the fan-out from ${from === START ? "the start" : `role "${from}"`} nor any step before it: reusing a fan-out's join (step ${number}) is not supported yet`,
        {
          hint: "An edit that changes a step before the fan-out, the fan-out edge or its join role rebases (the fan-out then runs afresh); a fan-out's child thread can be rebased on its own.",
        },
      );
    }
    return null;
  }
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

/** The rebased thread as written: its pointer and, by recorded step, the step reusing it. */
export interface RebasedThread {
  pointer: ThreadPointer;
  /** Recorded step hash → the rebased thread's step with the same output, body and prompt. */
  steps: Map<string, string>;
}

/**
 * Write the thread a plan makes: a StartNode pinning the rebased workflow (the recorded one's
 * prompt, cwd, inputs and time, so rebasing twice onto one workflow gives the same nodes), a
 * copy of each reused step re-linked onto it (output, body, detail, prompts and usage are the
 * recorded ones: no agent runs), and a new idle thread whose head is the last of them. The
 * recorded thread is left as it is. The workflow must be stored.
 */
export async function writeRebase(
  store: Pick<Store, "cas" | "threads">,
  plan: ThreadRebasePlan,
  options: {
    nowMs?: number;
    /** The rebased thread's own git worktree, for a recorded thread that has one. */
    forkWorktree?(
      thread: string,
      recorded: ThreadPointer,
    ): { worktree: ThreadWorktree; cwd: string };
  } = {},
): Promise<RebasedThread> {
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
  const newStart = await cas.put(cas.builtin(startNodeKind(startPayload)), startPayload);

  const steps = new Map<string, string>();
  let head = newStart;
  let prev: string | null = null;
  let currentRole: string | null = null;
  for (const reused of plan.reused) {
    const step = await cas.getPayload<StepPayload>(reused.hash, "step");
    const copied = { ...step, start: newStart, prev };
    head = await cas.put(cas.builtin(stepNodeKind(copied)), copied);
    steps.set(reused.hash, head);
    prev = head;
    currentRole = step.role;
  }
  const title = recorded.title ?? (titleFromText(start.prompt) || workflow.name);
  const pointer: ThreadPointer = {
    thread: newUlid(nowMs),
    workflow: workflow.name,
    workflowHash: plan.workflow.hash,
    start: newStart,
    head,
    status: "idle",
    currentRole,
    suspended: null,
    steps: plan.reused.length,
    cwd: recorded.cwd,
    createdAt: isoTime(nowMs),
    updatedAt: isoTime(nowMs),
    title: title.endsWith(" (rebased)") ? title : `${title} (rebased)`,
    rebasedFrom: { thread: recorded.thread, step: plan.reused.at(-1)?.hash ?? recorded.start },
  };
  if (recorded.agent !== undefined) pointer.agent = recorded.agent;
  if (recorded.worktree !== undefined && options.forkWorktree !== undefined) {
    const made = options.forkWorktree(pointer.thread, recorded);
    pointer.worktree = made.worktree;
    pointer.cwd = made.cwd;
  }
  return { pointer: await store.threads.create(pointer), steps };
}
