import type { Runner } from "@united-workforce/engine";
import {
  END,
  type StepListEntry,
  type StepPayload,
  type ThreadPointer,
  type ThreadStatus,
  type ThreadTreeDocument,
  type Usage,
  type WorkflowPayload,
} from "@united-workforce/protocol";
import { stepListEntry } from "../../commands/step/list-entry.js";
import { HASH, notFound, readPointer } from "./ids.js";
import { type RaceView, raceViews } from "./races.js";
import { type ThreadRoute, threadRoute } from "./route.js";
import { type ThreadRow, threadStatus } from "./threads.js";
import { type WaitView, waitView } from "./wait.js";

// One thread's page: its steps, what runs next, its fork family; and one step of it.

export interface StepView {
  number: number;
  hash: string;
  role: string;
  status: string;
  agent: string;
  startedAt: string;
  durationMs: number;
  usage: Usage;
  /** What it changed in its git working tree, when it ran in one. */
  diffStat?: StepListEntry["diffStat"];
  output: Record<string, unknown>;
  /** The step's markdown body. */
  body: string;
  attempts: number;
}

export interface ThreadView {
  row: ThreadRow;
  pointer: ThreadPointer;
  startPrompt: string;
  steps: StepView[];
  /** The role that runs next: routed when idle, the one `thread resume` runs when suspended. */
  nextRole: string | null;
  /** Its fork family (the engine's `forkTree`): every thread sharing its StartNode. */
  tree: ThreadTreeDocument;
  /** The workflow it is pinned to, and the thread's route on its graph. */
  workflow: WorkflowPayload;
  route: ThreadRoute;
  /** What it waits for, when suspended. */
  wait: WaitView | null;
  /** While an exec holds it: the role that runs, its agent, since when the exec holds it. */
  running: { role: string | null; agent: string; since: string } | null;
  /** The threads its fan-outs made, in item order. */
  children: ChildRow[];
  /** Its races (`thread race`), or the race it is a fork in, each fork with its step. */
  races: RaceView[];
}

/** A fan-out's child, as its parent's page lists it. */
export interface ChildRow {
  thread: string;
  title: string | null;
  index: number;
  status: ThreadStatus;
  steps: number;
  currentRole: string | null;
  /** The parent's step whose route fanned out. */
  step: string;
}

export async function threadView(runner: Runner, id: string): Promise<ThreadView> {
  const { forkTree, liveHolder, walkBack } = await import("@united-workforce/engine");
  const row = await threadStatus(runner, id);
  const pointer = await readPointer(runner, id);
  const { cas } = runner.store;
  const start = await cas.getPayload<{ prompt: string }>(pointer.start, "start");
  const steps: StepView[] = [];
  for await (const { hash, step } of walkBack(
    cas,
    pointer.head === pointer.start ? null : pointer.head,
  )) {
    steps.push(await stepView(runner, hash, step));
  }
  steps.reverse();
  steps.forEach((s, i) => {
    s.number = i + 1;
  });
  // What `thread show` says runs next: the routed role when idle, the one resume runs when
  // suspended. While an exec holds the thread, the same reading says which role runs.
  let pending: string | null = null;
  try {
    pending = (await runner.next(pointer))?.role ?? null;
  } catch {
    pending = null;
  }
  const nextRole = row.status === "idle" || row.status === "suspended" ? pending : null;
  const workflow = await runner.workflow(pointer.workflowHash);
  const holder = row.status === "running" ? await liveHolder(runner.store, id) : null;
  const runningRole = pointer.status === "suspended" ? (pointer.suspended?.role ?? null) : pending;
  const current =
    row.status === "completed"
      ? END
      : row.status === "running"
        ? runningRole
        : (pointer.suspended?.role ?? nextRole);
  return {
    row,
    pointer,
    startPrompt: start.prompt,
    steps,
    nextRole,
    tree: await forkTree(runner.store, id),
    workflow,
    route: threadRoute(workflow, steps, current),
    wait: await waitView(runner, pointer),
    running:
      holder === null
        ? null
        : {
            role: runningRole,
            agent: agentOf(workflow, runningRole, pointer),
            since: holder.since,
          },
    children: await fanoutChildren(runner, id),
    races: await raceViews(runner, pointer),
  };
}

/** Who runs a role: a person, its script, else the thread's `--agent` or config's agent. */
function agentOf(workflow: WorkflowPayload, role: string | null, pointer: ThreadPointer): string {
  const def = role === null ? undefined : workflow.roles[role];
  if (def?.agent === "human") return "human";
  if (def?.run !== undefined) return "script";
  return pointer.agent ?? "the configured agent";
}

/** The threads whose pointer names this one as their fan-out parent (the engine's reading). */
async function fanoutChildren(runner: Runner, id: string): Promise<ChildRow[]> {
  const { withFanoutChildren } = await import("@united-workforce/engine");
  const family = await withFanoutChildren(runner.store, [id]);
  const rows: ChildRow[] = [];
  for (const child of family.slice(1)) {
    const pointer = await runner.store.threads.get(child);
    if (pointer.parent?.thread !== id) continue;
    const row = await threadStatus(runner, child);
    rows.push({
      thread: child,
      title: pointer.title ?? null,
      index: pointer.parent.index,
      status: row.status,
      steps: pointer.steps,
      currentRole: pointer.currentRole,
      step: pointer.parent.step,
    });
  }
  return rows.sort((a, b) => a.step.localeCompare(b.step) || a.index - b.index);
}

async function stepView(runner: Runner, hash: string, step: StepPayload): Promise<StepView> {
  const { entry, output } = await stepListEntry(runner.store.cas, hash, step);
  const body = await runner.store.cas.getText(step.body);
  return { number: 0, ...entry, output, body, attempts: step.attempts };
}

export interface StepDetail {
  thread: string;
  /** The thread's title, if it has one. */
  title: string | null;
  step: StepView;
  edgePrompt: string;
  body: string;
  prompt: string;
  /** `thread steer` notes its agent got while it ran, in order. */
  liveGuidance: { text: string; deliveredAt: string; afterTurn: number }[];
  cwd: string;
  prev: string | null;
}

/** A step of a thread: its output, body and the exact prompt its agent received. */
export async function stepDetail(runner: Runner, id: string, hash: string): Promise<StepDetail> {
  const { readStep, recordedGuidance, threadStarts } = await import("@united-workforce/engine");
  const pointer = await readPointer(runner, id);
  if (!HASH.test(hash)) throw notFound("STEP_NOT_FOUND", `"${hash}" is not a step hash`);
  const step = await readStep(runner.store.cas, hash);
  // A rebased thread's first steps are the recorded thread's, with their start.
  if (!(await threadStarts(runner.store.cas, pointer.start)).includes(step.start))
    throw notFound("STEP_NOT_FOUND", `step ${hash} is not a step of thread ${id}`);
  const { cas } = runner.store;
  return {
    thread: id,
    title: pointer.title ?? null,
    step: await stepView(runner, hash, step),
    edgePrompt: step.edgePrompt,
    body: await cas.getText(step.body),
    prompt: await cas.getText(step.assembledPrompt),
    liveGuidance: recordedGuidance((await cas.get(step.detail)).payload).map(
      ({ text, deliveredAt, afterTurn }) => ({ text, deliveredAt, afterTurn }),
    ),
    cwd: step.cwd,
    prev: step.prev,
  };
}
