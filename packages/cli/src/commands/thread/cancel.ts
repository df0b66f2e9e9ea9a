import type { Engine } from "@united-workforce/engine";
import type { ThreadCancelDocument, ThreadWorktree } from "@united-workforce/protocol";
import { isUwfError, UwfError } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";
import { openEngine } from "./shared.js";

export default defineCommand({
  path: ["thread", "cancel"],
  summary: "stop any running exec and archive the thread as cancelled",
  description:
    "The unfinished children of a fan-out the thread waits on are cancelled with it; children that completed stay as they are.",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  options: [
    {
      flags: "--keep-worktree",
      type: "boolean",
      description:
        "keep the thread's git worktree and branch (by default a worktree without uncommitted changes is removed, and its branch too when it holds no commits)",
    },
  ],
  examples: [
    "uwf thread cancel 01JB7ZQ0000000000000000000",
    "uwf thread cancel <thread> --keep-worktree",
  ],
  async run(ctx, [thread], options) {
    const { fanoutChildren, stopHolder, takeThread } = await import("@united-workforce/engine");
    const engine = await openEngine(ctx);
    const { store } = engine;
    const before = await store.threads.get(thread!);
    refuseCompleted(before.status, thread!);
    // Recorded before a running exec is stopped, so that exec ends saying the thread was
    // cancelled rather than that it was interrupted (its own writes from then on are refused).
    await stopHolder(store, thread!, { beforeSignal: () => markCancelled(engine, thread!) });
    const lease = await takeThread(store, thread!, "uwf thread cancel");
    try {
      const pointer = await store.threads.get(thread!);
      refuseCompleted(pointer.status, thread!);
      const cancelled =
        pointer.status === "cancelled"
          ? pointer
          : await engine.write({ ...pointer, status: "cancelled" });
      ctx.events.emit("thread.cancel", { thread: thread! });
      const doc: ThreadCancelDocument = { thread: thread!, status: cancelled.status };
      // The children of a fan-out not joined yet end with it; finished ones stay as they are.
      const fanout = await fanoutChildren(engine, pointer);
      const ended: string[] = [];
      const childWorktrees: NonNullable<ThreadCancelDocument["childWorktrees"]> = [];
      for (const child of fanout?.children ?? []) {
        if (child.pointer === null) continue;
        if (child.pointer.status === "completed" || child.pointer.status === "cancelled") continue;
        await stopHolder(store, child.thread);
        const childLease = await takeThread(store, child.thread, "uwf thread cancel");
        try {
          const current = await store.threads.get(child.thread);
          if (current.status === "completed" || current.status === "cancelled") continue;
          await engine.write({ ...current, status: "cancelled" });
          // A child's own worktree (its workflow says `worktree: true`) goes as the parent's does.
          if (current.worktree !== undefined) {
            const removal = await cleanUpWorktree(
              current.worktree,
              ctx.env,
              options.keepWorktree === true,
            );
            ctx.events.emit("thread.worktree", { thread: child.thread, ...removal });
            childWorktrees.push(removal);
          }
        } finally {
          await childLease.release();
        }
        ctx.events.emit("thread.cancel", { thread: child.thread, parent: thread });
        ended.push(child.thread);
      }
      if (ended.length > 0) doc.children = ended;
      if (childWorktrees.length > 0) doc.childWorktrees = childWorktrees;
      if (cancelled.worktree !== undefined) {
        doc.worktree = await cleanUpWorktree(
          cancelled.worktree,
          ctx.env,
          options.keepWorktree === true,
        );
        ctx.events.emit("thread.worktree", { thread: thread!, ...doc.worktree });
      }
      return result(doc, (d) =>
        [
          `${d.thread}: cancelled`,
          ...(d.children === undefined
            ? []
            : [`cancelled with it: ${d.children.length} unfinished fan-out children`]),
          ...(d.worktree === undefined ? [] : [d.worktree.note]),
          ...(d.childWorktrees ?? []).map((w) => w.note),
        ].join("\n"),
      );
    } finally {
      await lease.release();
    }
  },
});

/**
 * Mark the thread cancelled while another exec still holds its lease: a compare-and-swap, tried
 * again when that exec wrote the pointer meanwhile (it writes at most once per step).
 */
async function markCancelled(engine: Engine, thread: string): Promise<void> {
  for (let tries = 1; ; tries++) {
    const pointer = await engine.store.threads.get(thread);
    refuseCompleted(pointer.status, thread);
    if (pointer.status === "cancelled") return;
    try {
      await engine.write({ ...pointer, status: "cancelled" });
      return;
    } catch (error) {
      if (tries >= 5 || !isUwfError(error) || error.code !== "THREAD_CONFLICT") throw error;
    }
  }
}

function refuseCompleted(status: string, thread: string): void {
  if (status === "completed") {
    throw new UwfError(
      "THREAD_STATE",
      `thread ${thread} is completed; a completed thread cannot be cancelled`,
      {
        hint: "It has already finished and nothing runs on it; `uwf thread show` tells how it ended.",
      },
    );
  }
}

async function cleanUpWorktree(
  worktree: ThreadWorktree,
  env: Record<string, string | undefined>,
  keep: boolean,
): Promise<NonNullable<ThreadCancelDocument["worktree"]>> {
  if (keep) {
    return {
      path: worktree.path,
      branch: worktree.branch,
      removed: false,
      branchRemoved: false,
      note: `worktree ${worktree.path} and branch ${worktree.branch} kept (--keep-worktree)`,
    };
  }
  const { removeThreadWorktree } = await import("@united-workforce/engine");
  return removeThreadWorktree(worktree, env);
}
