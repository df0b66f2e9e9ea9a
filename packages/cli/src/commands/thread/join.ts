import { UwfError } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["thread", "join"],
  interruptible: true,
  summary: "wait for a running exec (e.g. --background) to finish, then show the status",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  options: [
    {
      flags: "--timeout <seconds>",
      type: "duration",
      bareUnit: "s",
      description: "give up after this long (exit 5)",
    },
  ],
  async run(ctx, [thread], options) {
    const { deriveStatus, waitForRelease } = await import("@united-workforce/engine");
    const store = await ctx.store();
    await store.threads.get(thread!);
    const timeout = options.timeout ?? null;
    const released = await waitForRelease(store, thread!, timeout, ctx.signal);
    if (!released) {
      throw new UwfError(
        ctx.signal.aborted ? "INTERRUPTED" : "THREAD_BUSY",
        `thread ${thread} is still running`,
        {
          hint: `Wait longer, or stop it with: uwf thread stop ${thread}`,
        },
      );
    }
    const pointer = await store.threads.get(thread!);
    const doc = {
      thread: pointer.thread,
      status: deriveStatus(pointer, null),
      head: pointer.head,
      steps: pointer.steps,
      suspended: pointer.suspended,
    };
    return result(
      doc,
      (d) =>
        `${d.thread}: ${d.status} after ${d.steps} step${d.steps === 1 ? "" : "s"}${d.suspended ? ` — ${d.suspended.reason}` : ""}`,
    );
  },
});
