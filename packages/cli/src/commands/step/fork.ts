import type { Runner } from "@united-workforce/engine";
import type {
  StartPayload,
  StepForkDocument,
  ThreadPointer,
  ThreadRace,
  ThreadWorktree,
} from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { isoTime, newUlid } from "@united-workforce/util";
import { type CommandContext, defineCommand, result } from "../command.js";
import { openRunner } from "../thread/shared.js";
import { givenTitle, titleOption } from "../thread/title-option.js";
import { worktreePlace } from "../thread/worktrees.js";

export default defineCommand({
  path: ["step", "fork"],
  summary:
    "make a new thread whose head is this step (nothing is copied; it remembers the agent its thread was run with)",
  args: [{ name: "step", type: "hash", description: "step hash" }],
  options: [titleOption("its thread's title, marked as a fork")],
  examples: [
    "uwf step fork 0K4Q8Z3M1XH2C && uwf thread exec <new thread>",
    'uwf step fork 0K4Q8Z3M1XH2C --title "Try the simpler fix"',
  ],
  async run(ctx, [hash], options) {
    const title = givenTitle(options.title);
    const { readStep } = await import("@united-workforce/engine");
    const runner = await openRunner(ctx);
    const step = await readStep(runner.store.cas, hash!);
    const pointer = await forkThread(ctx, runner, {
      at: hash!,
      start: step.start,
      ...(title === undefined ? {} : { title }),
    });
    const doc: StepForkDocument = { thread: pointer.thread, forkedFrom: hash! };
    if (pointer.worktree !== undefined) doc.worktree = pointer.worktree;
    return result(doc, (d) => d.thread);
  },
});

/** How `forkThread` makes its thread; `at` may be the StartNode (`thread race` of a new thread). */
export interface ForkRequest {
  at: string;
  start: string;
  title?: string;
  /** The agent the fork runs with (else the one its family agrees on, else config.yaml's). */
  agent?: string;
  race?: ThreadRace;
}

/**
 * Make a new thread whose head is `at` (nothing is copied): in the cwd its family runs in, or in
 * a worktree of its own branched from the one `at` ran in. Said as `step.fork`.
 */
export async function forkThread(
  ctx: CommandContext,
  runner: Runner,
  request: ForkRequest,
): Promise<ThreadPointer> {
  const { readStep, walkBack } = await import("@united-workforce/engine");
  const { cas } = runner.store;
  const { at } = request;
  const start = await cas.getPayload<StartPayload>(request.start, "start");
  const atStart = at === request.start;
  const step = atStart ? null : await readStep(cas, at);
  const workflow = await runner.workflow(start.workflow);
  let steps = 0;
  if (!atStart) for await (const _ of walkBack(cas, at)) steps++;
  const family = await threadsOf(runner.store, request.start);
  const now = Date.now();
  const pointer: ThreadPointer = {
    thread: newUlid(now),
    workflow: workflow.name,
    workflowHash: start.workflow,
    start: request.start,
    head: at,
    status: "idle",
    currentRole: step?.role ?? null,
    suspended: null,
    steps,
    cwd: placeOf(family, at) ?? start.cwd,
    createdAt: isoTime(now),
    updatedAt: isoTime(now),
  };
  if (!atStart) pointer.forkedFrom = at;
  const forkTitle = request.title ?? titleOfFork(family, at);
  if (forkTitle !== undefined) pointer.title = forkTitle;
  const agent = request.agent ?? rememberedAgent(family);
  if (agent !== undefined) {
    pointer.agent = agent;
    if (request.agent === undefined) {
      ctx.progress(
        `agent ${agent} (the one its thread was run with; --agent on exec overrides it)`,
      );
    }
  }
  if (request.race !== undefined) pointer.race = request.race;
  // A fork of a thread with a worktree gets its own, branched from that thread's branch.
  const parent = await worktreeOwner(family, step?.cwd ?? start.cwd, atStart);
  if (parent !== null) {
    const { forkThreadWorktree } = await import("@united-workforce/engine");
    const made = forkThreadWorktree(
      await worktreePlace(ctx),
      parent.worktree,
      parent.cwd,
      pointer.thread,
    );
    pointer.worktree = made.worktree;
    pointer.cwd = made.cwd;
    ctx.progress(`worktree ${made.worktree.path} on branch ${made.worktree.branch}`);
  }
  const created = await runner.store.threads.create(pointer);
  // A fork of a final or asking step starts out completed or suspended, like the original.
  const settled = await runner.settle(created);
  ctx.events.emit("step.fork", { thread: pointer.thread, from: at });
  return settled;
}

/** The threads of this store that share a StartNode. */
async function threadsOf(store: Store, start: string): Promise<ThreadPointer[]> {
  const { items } = await store.threads.list({ start });
  return items.flatMap((item) => (item.pointer === null ? [] : [item.pointer]));
}

/**
 * A fork's title when none is given: the title of a thread holding the step (the one at it
 * first), marked as a fork; none when those threads have none.
 */
function titleOfFork(family: readonly ThreadPointer[], step: string): string | undefined {
  const titled = family.filter((pointer) => pointer.title !== undefined);
  const title = (titled.find((pointer) => pointer.head === step) ?? titled[0])?.title;
  if (title === undefined) return undefined;
  return title.endsWith(" (fork)") ? title : `${title} (fork)`;
}

/**
 * Where this store runs the step's threads: the cwd of one that shares its StartNode, without a
 * worktree of its own (the one at this step first). The StartNode's cwd is where the thread
 * began, which for an imported thread is another machine's path: its importer chose another.
 */
function placeOf(family: readonly ThreadPointer[], step: string): string | undefined {
  const plain = family.filter((pointer) => pointer.worktree === undefined);
  return (plain.find((pointer) => pointer.head === step) ?? plain[0])?.cwd;
}

/**
 * The agent the step's threads were run with, when they remember one and agree, so the fork
 * runs on as they did; with none or several, config.yaml decides, as for a new thread.
 */
function rememberedAgent(family: readonly ThreadPointer[]): string | undefined {
  const agents = new Set(family.flatMap((pointer) => pointer.agent ?? []));
  return agents.size === 1 ? [...agents][0] : undefined;
}

/**
 * The thread whose worktree the step ran in: of the threads sharing the step's StartNode, the
 * one whose worktree holds the step's cwd. Null when the step ran in no thread's worktree.
 */
async function worktreeOwner(
  family: readonly ThreadPointer[],
  stepCwd: string,
  atStart: boolean,
): Promise<{ worktree: ThreadWorktree; cwd: string } | null> {
  const { isInside } = await import("@united-workforce/engine");
  for (const pointer of family) {
    const worktree = pointer.worktree;
    // At the StartNode no step ran yet: the thread's own worktree is where it would have.
    if (worktree !== undefined && (atStart || isInside(worktree.path, stepCwd))) {
      return { worktree, cwd: pointer.cwd };
    }
  }
  return null;
}
