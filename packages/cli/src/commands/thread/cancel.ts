import { acquireLock, threadLockPath } from "@united-workforce/store";
import { UwfError } from "@united-workforce/util";
import { stopHolder } from "../../threads/stop-holder.js";
import { defineCommand, result } from "../command.js";
import { openEngine } from "./shared.js";

export default defineCommand({
  path: ["thread", "cancel"],
  summary: "stop any running exec and archive the thread as cancelled",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  async run(ctx, [thread]) {
    const engine = openEngine(ctx);
    const before = engine.threads.read(thread!);
    refuseCompleted(before.status, thread!);
    const lockPath = threadLockPath(ctx.home, thread!);
    await stopHolder(lockPath);
    const lock = acquireLock(lockPath, "uwf thread cancel");
    try {
      const pointer = engine.threads.read(thread!);
      refuseCompleted(pointer.status, thread!);
      const cancelled =
        pointer.status === "cancelled"
          ? pointer
          : engine.write({ ...pointer, status: "cancelled" });
      ctx.logger.info("thread.cancel", { thread });
      const doc = { thread: thread!, status: cancelled.status };
      return result(doc, (d) => `${d.thread}: cancelled`);
    } finally {
      lock.release();
    }
  },
});

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
