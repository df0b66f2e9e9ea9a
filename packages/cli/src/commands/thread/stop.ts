import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["thread", "stop"],
  summary: "stop a running exec (and its agent's whole process group); the thread stays idle",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  async run(ctx, [thread]) {
    const { stopHolder } = await import("@united-workforce/engine");
    const store = await ctx.store();
    await store.threads.get(thread!);
    const stopped = await stopHolder(store, thread!);
    if (stopped) ctx.events.emit("thread.stop", { thread: thread!, holder: stopped.pid });
    const doc = { thread: thread!, stopped: stopped !== null, pid: stopped?.pid ?? null };
    return result(doc, (d) =>
      d.stopped ? `stopped exec pid ${d.pid}` : "no exec is running on this thread",
    );
  },
});
