import { existsSync } from "node:fs";
import type { ThreadCleanupDocument, ThreadPointer } from "@united-workforce/protocol";
import { isUwfError, UwfError } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";
import { openEngine } from "./shared.js";

export default defineCommand({
  path: ["thread", "cleanup"],
  summary:
    "remove the git worktree of a completed or cancelled thread (and its fan-out children's)",
  description:
    "Removes the thread's worktree unless it holds uncommitted changes (then it is kept, and the message says how to finish by hand). Its branch uwf/<thread> is removed too when it holds no commits, and kept when it does: it is the thread's work. The worktrees of its fan-out children (and theirs) that have ended go by the same rules; those of children still running or waiting stay. `uwf thread cancel` does the same for a thread that has not ended.",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  examples: ["uwf thread cleanup <thread>"],
  async run(ctx, [thread]) {
    const { removeThreadWorktree, takeThread, withFanoutChildren } = await import(
      "@united-workforce/engine"
    );
    const engine = await openEngine(ctx);
    const { store } = engine;
    const ended = (p: ThreadPointer) => p.status === "completed" || p.status === "cancelled";
    const doc: ThreadCleanupDocument = { thread: thread! };
    const lease = await takeThread(store, thread!, "uwf thread cleanup");
    try {
      const pointer = await store.threads.get(thread!);
      if (pointer.worktree !== undefined) {
        if (!ended(pointer)) {
          throw new UwfError(
            "THREAD_STATE",
            `thread ${thread} is ${pointer.status}; its worktree is still in use`,
            {
              hint: `Cancel it instead (uwf thread cancel ${thread}), which removes the worktree too, or run it to the end first.`,
            },
          );
        }
        const removal = removeThreadWorktree(pointer.worktree, ctx.env);
        ctx.events.emit("thread.worktree", { thread: thread!, ...removal });
        doc.worktree = removal;
      }
    } finally {
      await lease.release();
    }
    // The fan-out children's own worktrees (child workflows with `worktree: true`).
    const family = await withFanoutChildren(store, [thread!]);
    const children: NonNullable<ThreadCleanupDocument["children"]> = [];
    for (const id of family.slice(1)) {
      const child = await store.threads.get(id);
      if (child.worktree === undefined || !ended(child) || !existsSync(child.worktree.path)) {
        continue;
      }
      let childLease: Awaited<ReturnType<typeof takeThread>>;
      try {
        childLease = await takeThread(store, id, "uwf thread cleanup");
      } catch (error) {
        if (isUwfError(error) && error.code === "THREAD_BUSY") continue;
        throw error;
      }
      try {
        const current = await store.threads.get(id);
        if (current.worktree === undefined || !ended(current)) continue;
        const removal = removeThreadWorktree(current.worktree, ctx.env);
        ctx.events.emit("thread.worktree", { thread: id, ...removal });
        children.push({ thread: id, worktree: removal });
      } finally {
        await childLease.release();
      }
    }
    if (children.length > 0) doc.children = children;
    if (doc.worktree === undefined && children.length === 0) {
      const hasChildren = family.length > 1;
      throw new UwfError(
        "THREAD_STATE",
        hasChildren
          ? `thread ${thread} has no git worktree, and none of its fan-out children that ended has one left`
          : `thread ${thread} has no git worktree`,
        {
          hint: "Only threads started with `worktree: true` or --worktree (or children of a workflow that says it) have one; `uwf thread show` shows it.",
        },
      );
    }
    return result(doc, (d) =>
      [
        ...(d.worktree === undefined ? [] : [d.worktree.note]),
        ...(d.children ?? []).map((c) => `${c.thread}: ${c.worktree.note}`),
      ].join("\n"),
    );
  },
});
