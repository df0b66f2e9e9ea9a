import { defineCommand, result } from "../command.js";
import { openRunner } from "./shared.js";

export default defineCommand({
  path: ["thread", "stop"],
  summary: "stop a running exec (and its agent's whole process group); the thread stays idle",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  async run(ctx, [thread]) {
    const runner = await openRunner(ctx);
    const stopped = await runner.stop(thread!);
    const doc = { thread: thread!, stopped: stopped !== null, pid: stopped?.pid ?? null };
    return result(doc, (d) =>
      d.stopped ? `stopped exec pid ${d.pid}` : "no exec is running on this thread",
    );
  },
});
