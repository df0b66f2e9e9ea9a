import type { ThreadCleanupDocument } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";
import { openEngine } from "./shared.js";

export default defineCommand({
  path: ["thread", "cleanup"],
  summary: "remove the git worktree of a completed or cancelled thread",
  description:
    "Removes the thread's worktree unless it holds uncommitted changes (then it is kept, and the message says how to finish by hand). Its branch uwf/<thread> is removed too when it holds no commits, and kept when it does: it is the thread's work. `uwf thread cancel` does the same for a thread that has not ended.",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  examples: ["uwf thread cleanup <thread>"],
  async run(ctx, [thread]) {
    const { removeThreadWorktree, takeThread } = await import("@united-workforce/engine");
    const engine = await openEngine(ctx);
    const { store } = engine;
    const lease = await takeThread(store, thread!, "uwf thread cleanup");
    try {
      const pointer = await store.threads.get(thread!);
      if (pointer.worktree === undefined) {
        throw new UwfError("THREAD_STATE", `thread ${thread} has no git worktree`, {
          hint: "Only threads started with `worktree: true` or --worktree have one; `uwf thread show` shows it.",
        });
      }
      if (pointer.status !== "completed" && pointer.status !== "cancelled") {
        throw new UwfError(
          "THREAD_STATE",
          `thread ${thread} is ${pointer.status}; its worktree is still in use`,
          {
            hint: `Cancel it instead (uwf thread cancel ${thread}), which removes the worktree too, or run it to the end first.`,
          },
        );
      }
      const removal = removeThreadWorktree(pointer.worktree, ctx.env);
      ctx.logger.info("thread.worktree", { thread, ...removal });
      const doc: ThreadCleanupDocument = { thread: thread!, worktree: removal };
      return result(doc, (d) => d.worktree.note);
    } finally {
      await lease.release();
    }
  },
});
