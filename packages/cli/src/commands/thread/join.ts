import { threadLockPath } from "@united-workforce/store";
import { UwfError } from "@united-workforce/util";
import { waitForRelease } from "../../threads/stop-holder.js";
import { deriveStatus } from "../../threads/thread-view.js";
import { defineCommand, result } from "../command.js";
import { openEngine } from "./shared.js";

export default defineCommand({
  path: ["thread", "join"],
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
    const engine = openEngine(ctx);
    engine.threads.read(thread!);
    const timeout = options.timeout ?? null;
    const released = await waitForRelease(threadLockPath(ctx.home, thread!), timeout, ctx.signal);
    if (!released) {
      throw new UwfError(
        ctx.signal.aborted ? "INTERRUPTED" : "THREAD_BUSY",
        `thread ${thread} is still running`,
        {
          hint: `Wait longer, or stop it with: uwf thread stop ${thread}`,
        },
      );
    }
    const pointer = engine.threads.read(thread!);
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
