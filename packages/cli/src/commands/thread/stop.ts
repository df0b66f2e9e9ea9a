import { threadLockPath } from "@united-workforce/store";
import { stopHolder } from "../../threads/stop-holder.js";
import { defineCommand, result } from "../command.js";
import { openEngine } from "./shared.js";

export default defineCommand({
  path: ["thread", "stop"],
  summary: "stop a running exec (and its agent's whole process group); the thread stays idle",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  async run(ctx, [thread]) {
    openEngine(ctx).threads.read(thread!);
    const stopped = await stopHolder(threadLockPath(ctx.home, thread!));
    if (stopped) ctx.logger.info("thread.stop", { thread, holder: stopped.pid });
    const doc = { thread: thread!, stopped: stopped !== null, pid: stopped?.pid ?? null };
    return result(doc, (d) =>
      d.stopped ? `stopped exec pid ${d.pid}` : "no exec is running on this thread",
    );
  },
});
