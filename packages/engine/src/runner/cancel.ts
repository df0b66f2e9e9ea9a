import { existsSync } from "node:fs";
import type {
  ThreadCancelDocument,
  ThreadCleanupDocument,
  ThreadPointer,
  ThreadWorktree,
} from "@united-workforce/protocol";
import { isUwfError, UwfError } from "@united-workforce/util";
import { withFanoutChildren } from "../history/bundle.js";
import { cancel } from "../state/apply-outcome.js";
import type { RunContext } from "../steps/context.js";
import { fanoutChildren } from "../steps/fanout/children.js";
import { takeThread } from "../threads/lease.js";
import { stopHolder } from "../threads/stop-holder.js";
import { removeThreadWorktree } from "../worktrees/git-worktree.js";

type WorktreeRemoval = NonNullable<ThreadCancelDocument["worktree"]>;

/**
 * Stop any running exec and archive the thread as cancelled; the unfinished children of a
 * fan-out it waits on are cancelled with it (children that completed stay as they are), and
 * the worktrees go unless `keepWorktree`.
 */
export async function cancelThread(
  run: RunContext,
  thread: string,
  options: { keepWorktree: boolean },
): Promise<ThreadCancelDocument> {
  const { store } = run;
  refuseCompleted(await store.threads.get(thread));
  // Recorded before a running exec is stopped, so that exec ends saying the thread was
  // cancelled rather than that it was interrupted (its own writes from then on are refused).
  await stopHolder(store, thread, { beforeSignal: () => markCancelled(run, thread) });
  const lease = await takeThread(store, thread, "uwf thread cancel", run.events);
  try {
    const pointer = await store.threads.get(thread);
    refuseCompleted(pointer);
    const cancelled = pointer.status === "cancelled" ? pointer : await cancel(run, pointer);
    run.events.emit("thread.cancel", { thread });
    const doc: ThreadCancelDocument = { thread, status: cancelled.status };
    const children = await cancelChildren(run, pointer, options.keepWorktree);
    if (children.ended.length > 0) doc.children = children.ended;
    if (children.worktrees.length > 0) doc.childWorktrees = children.worktrees;
    if (cancelled.worktree !== undefined) {
      doc.worktree = await cleanUpWorktree(cancelled.worktree, run.env, options.keepWorktree);
      run.events.emit("thread.worktree", { thread, ...doc.worktree });
    }
    return doc;
  } finally {
    await lease.release();
  }
}

/** The children of a fan-out not joined yet end with their parent; finished ones stay. */
async function cancelChildren(
  run: RunContext,
  parent: ThreadPointer,
  keepWorktree: boolean,
): Promise<{ ended: string[]; worktrees: WorktreeRemoval[] }> {
  const { store } = run;
  const fanout = await fanoutChildren(run, parent);
  const ended: string[] = [];
  const worktrees: WorktreeRemoval[] = [];
  for (const child of fanout?.children ?? []) {
    if (child.pointer === null || finished(child.pointer)) continue;
    await stopHolder(store, child.thread);
    const lease = await takeThread(store, child.thread, "uwf thread cancel", run.events);
    try {
      const current = await store.threads.get(child.thread);
      if (finished(current)) continue;
      await cancel(run, current);
      // A child's own worktree (its workflow says `worktree: true`) goes as the parent's does.
      if (current.worktree !== undefined) {
        const removal = await cleanUpWorktree(current.worktree, run.env, keepWorktree);
        run.events.emit("thread.worktree", { thread: child.thread, ...removal });
        worktrees.push(removal);
      }
    } finally {
      await lease.release();
    }
    run.events.emit("thread.cancel", { thread: child.thread, parent: parent.thread });
    ended.push(child.thread);
  }
  return { ended, worktrees };
}

/**
 * Remove the git worktree of a thread that ended, and those of its fan-out children that ended
 * (at any depth). A worktree with uncommitted changes is kept, as is a branch with commits.
 */
export async function cleanUpThread(
  run: RunContext,
  thread: string,
): Promise<ThreadCleanupDocument> {
  const { store } = run;
  const doc: ThreadCleanupDocument = { thread };
  const lease = await takeThread(store, thread, "uwf thread cleanup", run.events);
  try {
    const pointer = await store.threads.get(thread);
    if (pointer.worktree !== undefined) {
      if (!finished(pointer)) {
        throw new UwfError(
          "THREAD_STATE",
          `thread ${thread} is ${pointer.status}; its worktree is still in use`,
          {
            hint: `Cancel it instead (uwf thread cancel ${thread}), which removes the worktree too, or run it to the end first.`,
          },
        );
      }
      doc.worktree = removeThreadWorktree(pointer.worktree, run.env);
      run.events.emit("thread.worktree", { thread, ...doc.worktree });
    }
  } finally {
    await lease.release();
  }
  // The fan-out children's own worktrees (child workflows with `worktree: true`).
  const family = await withFanoutChildren(store, [thread]);
  const children: NonNullable<ThreadCleanupDocument["children"]> = [];
  for (const id of family.slice(1)) {
    const removal = await cleanUpChild(run, id);
    if (removal !== null) children.push({ thread: id, worktree: removal });
  }
  if (children.length > 0) doc.children = children;
  if (doc.worktree === undefined && children.length === 0) {
    throw new UwfError(
      "THREAD_STATE",
      family.length > 1
        ? `thread ${thread} has no git worktree, and none of its fan-out children that ended has one left`
        : `thread ${thread} has no git worktree`,
      {
        hint: "Only threads started with `worktree: true` or --worktree (or children of a workflow that says it) have one; `uwf thread show` shows it.",
      },
    );
  }
  return doc;
}

/** A child's worktree, removed when the child ended and no exec holds it; else null. */
async function cleanUpChild(run: RunContext, id: string): Promise<WorktreeRemoval | null> {
  const { store } = run;
  const child = await store.threads.get(id);
  if (child.worktree === undefined || !finished(child) || !existsSync(child.worktree.path)) {
    return null;
  }
  let lease: Awaited<ReturnType<typeof takeThread>>;
  try {
    lease = await takeThread(store, id, "uwf thread cleanup", run.events);
  } catch (error) {
    if (isUwfError(error) && error.code === "THREAD_BUSY") return null;
    throw error;
  }
  try {
    const current = await store.threads.get(id);
    if (current.worktree === undefined || !finished(current)) return null;
    const removal = removeThreadWorktree(current.worktree, run.env);
    run.events.emit("thread.worktree", { thread: id, ...removal });
    return removal;
  } finally {
    await lease.release();
  }
}

/**
 * Mark the thread cancelled while another exec still holds its lease: a compare-and-swap, tried
 * again when that exec wrote the pointer meanwhile (it writes at most once per step).
 */
async function markCancelled(run: RunContext, thread: string): Promise<void> {
  for (let tries = 1; ; tries++) {
    const pointer = await run.store.threads.get(thread);
    refuseCompleted(pointer);
    if (pointer.status === "cancelled") return;
    try {
      await cancel(run, pointer);
      return;
    } catch (error) {
      if (tries >= 5 || !isUwfError(error) || error.code !== "THREAD_CONFLICT") throw error;
    }
  }
}

function refuseCompleted(pointer: ThreadPointer): void {
  if (pointer.status === "completed") {
    throw new UwfError(
      "THREAD_STATE",
      `thread ${pointer.thread} is completed; a completed thread cannot be cancelled`,
      {
        hint: "It has already finished and nothing runs on it; `uwf thread show` tells how it ended.",
      },
    );
  }
}

/** A thread that ended: nothing runs on it again, and its worktree may go. */
function finished(pointer: ThreadPointer): boolean {
  return pointer.status === "completed" || pointer.status === "cancelled";
}

async function cleanUpWorktree(
  worktree: ThreadWorktree,
  env: Record<string, string | undefined>,
  keep: boolean,
): Promise<WorktreeRemoval> {
  if (keep) {
    return {
      path: worktree.path,
      branch: worktree.branch,
      removed: false,
      branchRemoved: false,
      note: `worktree ${worktree.path} and branch ${worktree.branch} kept (--keep-worktree)`,
    };
  }
  return removeThreadWorktree(worktree, env);
}
