import type {
  StartPayload,
  StepForkDocument,
  ThreadPointer,
  ThreadWorktree,
} from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { isoTime, newUlid } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";
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
    const { readStep, walkBack } = await import("@united-workforce/engine");
    const runner = await openRunner(ctx);
    const { cas } = runner.store;
    const step = await readStep(cas, hash!);
    const start = await cas.getPayload<StartPayload>(step.start, "start");
    const workflow = await runner.workflow(start.workflow);
    let steps = 0;
    for await (const _ of walkBack(cas, hash!)) steps++;
    const family = await threadsOf(runner.store, step.start);
    const now = Date.now();
    const pointer: ThreadPointer = {
      thread: newUlid(now),
      workflow: workflow.name,
      workflowHash: start.workflow,
      start: step.start,
      head: hash!,
      status: "idle",
      currentRole: step.role,
      suspended: null,
      steps,
      cwd: placeOf(family, hash!) ?? start.cwd,
      createdAt: isoTime(now),
      updatedAt: isoTime(now),
      forkedFrom: hash!,
    };
    const forkTitle = title ?? titleOfFork(family, hash!);
    if (forkTitle !== undefined) pointer.title = forkTitle;
    const agent = rememberedAgent(family);
    if (agent !== undefined) {
      pointer.agent = agent;
      ctx.progress(
        `agent ${agent} (the one its thread was run with; --agent on exec overrides it)`,
      );
    }
    // A fork of a thread with a worktree gets its own, branched from that thread's branch.
    const parent = await worktreeOwner(family, step.cwd);
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
    await runner.settle(created);
    ctx.events.emit("step.fork", { thread: pointer.thread, from: hash! });
    const doc: StepForkDocument = { thread: pointer.thread, forkedFrom: hash! };
    if (pointer.worktree !== undefined) doc.worktree = pointer.worktree;
    return result(doc, (d) => d.thread);
  },
});

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
): Promise<{ worktree: ThreadWorktree; cwd: string } | null> {
  const { isInside } = await import("@united-workforce/engine");
  for (const pointer of family) {
    const worktree = pointer.worktree;
    if (worktree !== undefined && isInside(worktree.path, stepCwd)) {
      return { worktree, cwd: pointer.cwd };
    }
  }
  return null;
}
