import { UwfError } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";
import { openEngine } from "./shared.js";

export default defineCommand({
  path: ["thread", "cancel"],
  summary: "stop any running exec and archive the thread as cancelled",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  async run(ctx, [thread]) {
    const { stopHolder, takeThread } = await import("@united-workforce/engine");
    const engine = await openEngine(ctx);
    const { store } = engine;
    const before = await store.threads.get(thread!);
    refuseCompleted(before.status, thread!);
    await stopHolder(store, thread!);
    const lease = await takeThread(store, thread!, "uwf thread cancel");
    try {
      const pointer = await store.threads.get(thread!);
      refuseCompleted(pointer.status, thread!);
      const cancelled =
        pointer.status === "cancelled"
          ? pointer
          : await engine.write({ ...pointer, status: "cancelled" });
      ctx.logger.info("thread.cancel", { thread });
      const doc = { thread: thread!, status: cancelled.status };
      return result(doc, (d) => `${d.thread}: cancelled`);
    } finally {
      await lease.release();
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
