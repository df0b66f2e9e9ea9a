import {
  START,
  type StartPayload,
  type StepPayload,
  type ThreadPointer,
  type WorkflowPayload,
} from "@united-workforce/protocol";
import type { Cas, Store } from "@united-workforce/store";
import { errorMessage, isUwfError, UwfError } from "@united-workforce/util";
import { evaluate, type FanoutTransition, startOutput } from "../../moderator/evaluate.js";
import { childThreadId } from "../../steps/fanout/children.js";
import { threadStarts } from "../chain.js";

/** A fan-out parent as the check reads it: its pointer, the CAS holding its chain, and where. */
interface Parent {
  pointer: ThreadPointer;
  cas: Cas;
  where: "the bundle" | "this store";
  workflow: WorkflowPayload;
  start: StartPayload;
  /** Each step of its chain by hash: its `prev` and role (to recognise a poked-away step). */
  chain: Map<string, { prev: string | null; role: string }>;
}

/**
 * Every bundled thread that names a fan-out parent must be the child that parent's fan-out
 * makes: the parent is in the bundle, or already in this store; `parent.step` is in the
 * parent's chain (or is the step a poke replaced there) and routes to a fan-out under the
 * parent's workflow; the child runs that fan-out's workflow; `index` is one of its items; the
 * child's id is the one derived from parent, step and index (so no two children share an item,
 * and no thread is its own ancestor); and its StartNode holds that item's task and time. The
 * parents' chains are verified already. Throws BUNDLE_INVALID (nothing written) otherwise.
 */
export async function checkFanoutParents(
  pointers: readonly ThreadPointer[],
  bundled: Cas,
  store: Store,
): Promise<void> {
  const byId = new Map(pointers.map((p) => [p.thread, p]));
  const parents = new Map<string, Parent>();
  for (const child of pointers) {
    if (child.parent === undefined) continue;
    const fail = (problem: string, hint?: string) =>
      invalidParent(child.thread, `its fan-out parent ${problem}`, hint);
    const { thread, step, index } = child.parent;
    if (thread === child.thread) throw fail("is the thread itself");
    const loop = parentLoop(child, byId);
    if (loop !== null) {
      throw invalidParent(
        child.thread,
        `its fan-out parents go round in a loop: ${loop.join(" → ")}`,
      );
    }

    let parent = parents.get(thread);
    if (parent === undefined) {
      const pointer = byId.get(thread) ?? (await existing(store, thread));
      if (pointer === null) {
        throw fail(
          `${thread} is neither in the bundle nor in this store`,
          `export the parent, which brings its fan-out children along: uwf thread export ${thread}`,
        );
      }
      parent = await readParent(pointer, byId.has(thread) ? bundled : store.cas, byId.has(thread));
      parents.set(thread, parent);
    }

    const at = `${thread} (in ${parent.where})`;
    const from = await fanoutStep(parent, step);
    if (typeof from === "string") throw fail(`${at} ${from}`);
    const { transition, timeMs } = from;
    const item = transition.items[index];
    if (item === undefined) {
      throw fail(
        `${at} fans out into ${transition.items.length} items at step ${step}: there is no item ${index}`,
      );
    }
    const derived = childThreadId(thread, step, index, timeMs);
    if (child.thread !== derived) {
      const held = byId.has(derived) ? ", which the bundle holds too" : "";
      throw fail(
        `${at} makes thread ${derived} for item ${index} of its fan-out at step ${step}${held}, not this one`,
      );
    }
    if (child.workflowHash !== transition.fanout.workflow) {
      throw fail(
        `${at} fans out into workflow ${transition.fanout.workflow} at step ${step}, not into this thread's ${child.workflowHash}`,
      );
    }
    const start = await bundled.getPayload<StartPayload>(child.start, "start");
    if (start.prompt !== item.prompt || start.createdAtMs !== timeMs) {
      throw fail(
        `${at} gives item ${index} of its fan-out at step ${step} another task or time than this thread's StartNode holds`,
      );
    }
  }
}

/** The parent line of `child` through the bundle's threads, when it comes back to a thread. */
function parentLoop(
  child: ThreadPointer,
  byId: ReadonlyMap<string, ThreadPointer>,
): string[] | null {
  const line = [child.thread];
  for (let at = child.parent?.thread; at !== undefined; at = byId.get(at)?.parent?.thread) {
    line.push(at);
    if (line.indexOf(at) < line.length - 1) return line;
  }
  return null;
}

async function readParent(pointer: ThreadPointer, cas: Cas, bundled: boolean): Promise<Parent> {
  const chain = new Map<string, { prev: string | null; role: string }>();
  for (let hash = pointer.head; hash !== pointer.start; ) {
    const step = await cas.getPayload<StepPayload>(hash, "step");
    chain.set(hash, { prev: step.prev, role: step.role });
    if (step.prev === null) break;
    hash = step.prev;
  }
  return {
    pointer,
    cas,
    where: bundled ? "the bundle" : "this store",
    workflow: await cas.getPayload<WorkflowPayload>(pointer.workflowHash, "workflow"),
    start: await cas.getPayload<StartPayload>(pointer.start, "start"),
    chain,
  };
}

/**
 * The fan-out the parent's `step` (a step hash, or its StartNode) leads to, and the time its
 * children's ids derive from; or why it leads to none.
 */
async function fanoutStep(
  parent: Parent,
  hash: string,
): Promise<{ transition: FanoutTransition; timeMs: number } | string> {
  const { pointer, cas, workflow, start } = parent;
  const inputs = workflow.inputs === undefined ? undefined : (start.inputs ?? {});
  let role = START;
  let output: Record<string, unknown> = startOutput("new");
  let timeMs = start.createdAtMs;
  if (hash !== pointer.start) {
    let step: StepPayload;
    try {
      step = await cas.getPayload<StepPayload>(hash, "step");
    } catch (error) {
      if (!isUwfError(error)) throw error;
      return `has no step ${hash}`;
    }
    if (!(await threadStarts(cas, pointer.start)).includes(step.start)) {
      return `has no step ${hash} (it is another thread's)`;
    }
    // A poke replaces a step with one of the same role and `prev`: children of the replaced
    // step's fan-out stay the parent's.
    const replaced = [...parent.chain.values()].some(
      (s) => s.prev === step.prev && s.role === step.role,
    );
    if (!parent.chain.has(hash) && !replaced) return `has no step ${hash} in its chain`;
    try {
      output = await cas.getPayload<Record<string, unknown>>(step.output);
    } catch (error) {
      if (!isUwfError(error)) throw error;
      return `has no output of step ${hash}`;
    }
    role = step.role;
    timeMs = step.completedAtMs;
  }
  let next: ReturnType<typeof evaluate>;
  try {
    next = evaluate(workflow.graph, role, output, inputs);
  } catch (error) {
    return `cannot be routed from step ${hash}: ${errorMessage(error)}`;
  }
  if (next.kind !== "fanout") {
    const what = role === START ? "$START.new" : `its step ${hash} (role "${role}")`;
    return `does not fan out after ${what}`;
  }
  return { transition: next, timeMs };
}

function invalidParent(thread: string, problem: string, hint?: string): UwfError {
  return new UwfError(
    "BUNDLE_INVALID",
    `thread ${thread} in the bundle: ${problem}; nothing was imported`,
    {
      hint:
        hint ??
        "a fan-out child is made by its parent's fan-out, which `uwf thread export <parent>` brings along: export the parent again from its store",
      details: { thread },
    },
  );
}

/** A thread's pointer in this store, or null when it has none. */
export async function existing(store: Store, id: string): Promise<ThreadPointer | null> {
  try {
    return await store.threads.get(id);
  } catch (error) {
    if (isUwfError(error) && error.code === "THREAD_NOT_FOUND") return null;
    throw error;
  }
}
