import type { Runner } from "@united-workforce/engine";
import type {
  StepPayload,
  ThreadPointer,
  ThreadTreeDocument,
  Usage,
} from "@united-workforce/protocol";
import { stepListEntry } from "../../commands/step/list-entry.js";
import type { FamilyIndex } from "../family-index.js";
import { HASH, notFound, readPointer } from "./ids.js";
import { type ThreadRow, threadStatus } from "./threads.js";

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
  output: Record<string, unknown>;
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
}

export async function threadView(
  runner: Runner,
  id: string,
  families?: FamilyIndex,
): Promise<ThreadView> {
  const { forkTree, walkBack } = await import("@united-workforce/engine");
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
  // suspended.
  let nextRole: string | null = null;
  if (row.status === "idle" || row.status === "suspended") {
    try {
      nextRole = (await runner.next(pointer))?.role ?? null;
    } catch {
      nextRole = null;
    }
  }
  return {
    row,
    pointer,
    startPrompt: start.prompt,
    steps,
    nextRole,
    tree: await forkTree(families?.store() ?? runner.store, id),
  };
}

async function stepView(runner: Runner, hash: string, step: StepPayload): Promise<StepView> {
  const { entry, output } = await stepListEntry(runner.store.cas, hash, step);
  return { number: 0, ...entry, output, attempts: step.attempts };
}

export interface StepDetail {
  thread: string;
  step: StepView;
  edgePrompt: string;
  body: string;
  prompt: string;
  cwd: string;
  prev: string | null;
}

/** A step of a thread: its output, body and the exact prompt its agent received. */
export async function stepDetail(runner: Runner, id: string, hash: string): Promise<StepDetail> {
  const { readStep } = await import("@united-workforce/engine");
  const pointer = await readPointer(runner, id);
  if (!HASH.test(hash)) throw notFound("STEP_NOT_FOUND", `"${hash}" is not a step hash`);
  const step = await readStep(runner.store.cas, hash);
  if (step.start !== pointer.start)
    throw notFound("STEP_NOT_FOUND", `step ${hash} is not a step of thread ${id}`);
  const { cas } = runner.store;
  return {
    thread: id,
    step: await stepView(runner, hash, step),
    edgePrompt: step.edgePrompt,
    body: await cas.getText(step.body),
    prompt: await cas.getText(step.assembledPrompt),
    cwd: step.cwd,
    prev: step.prev,
  };
}
