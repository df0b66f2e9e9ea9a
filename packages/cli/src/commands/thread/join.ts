import { UwfError } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";
import { openRunner, progressView, QUIET_OPTION } from "./shared.js";

export default defineCommand({
  path: ["thread", "join"],
  interruptible: true,
  summary: "wait for a running exec (e.g. --background) to finish, then show the status",
  description: [
    "Shows the steps it waits on as they run (on stderr, as exec shows its own) unless --quiet.",
    "Exit code: the exec's own, as if it had run in the foreground: 0 when it completed, ran its count or left the thread waiting for an answer, a budget or a guard; 4 when an agent failed (the thread is suspended until `uwf thread resume`); 130 when the exec was stopped or the thread cancelled; a background exec that failed before its first step prints its error with that error's code (2 for an unknown agent). A thread that is not running is judged by how its last exec ended, in the foreground or the background, when nothing changed the thread since, else by its state (4 when a failed agent suspended it, 130 when it is cancelled). 5 when --timeout runs out, 130 when join itself is interrupted (the exec goes on).",
  ].join("\n"),
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  options: [
    {
      flags: "--timeout <seconds>",
      type: "duration",
      bareUnit: "s",
      description: "give up after this long (exit 5)",
    },
    QUIET_OPTION,
  ],
  async run(ctx, [thread], options) {
    const runner = await openRunner(ctx);
    const { store } = runner;
    await store.threads.get(thread!);
    const waiting = runner.waitForRelease(thread!, options.timeout ?? null);
    const lease = options.quiet ? null : await store.leases.read(thread!);
    const followed = lease?.alive === true;
    if (lease?.alive) {
      // The steps it waits on are shown as they run, as `thread watch` shows them.
      const { followThread } = await import("../../live/follow-thread.js");
      await followThread({
        home: ctx.home,
        thread: thread!,
        progress: progressView(ctx, false, thread!),
        signal: ctx.signal,
        ended: waiting,
        announce: () => {},
        since: lease.info.acquiredAt,
      });
    }
    if (!(await waiting)) {
      // `thread stop` signals the holder's process: it works only on the host that runs it.
      const host = (await store.leases.read(thread!))?.info.holder.host;
      const where = host === undefined || host === store.host ? "" : ` on ${host}, where it runs`;
      throw new UwfError(
        ctx.signal.aborted ? "INTERRUPTED" : "THREAD_BUSY",
        `thread ${thread} is still running`,
        { hint: `Wait longer, or stop it${where} with: uwf thread stop ${thread}` },
      );
    }
    const pointer = await store.threads.get(thread!);
    // The exit code is the exec's own, as if it had run in the foreground.
    const { exitCode, stopped, failed } = runner.lastRun(pointer);
    const doc = {
      thread: pointer.thread,
      status: pointer.status,
      head: pointer.head,
      steps: pointer.steps,
      suspended: pointer.suspended,
    };
    return result(
      doc,
      (d) => {
        const lead = `${d.thread}: ${d.status} after ${d.steps} step${d.steps === 1 ? "" : "s"}`;
        if (stopped !== null) return `${lead} — ${stopped}`;
        if (!d.suspended) return lead;
        // The failure, with its agent's stderr, was shown as it happened: said once, as watch does.
        if (followed && failed && d.suspended.kind === "failure")
          return `${lead} — role "${d.suspended.role}" failed (reported above on stderr). To retry the step: uwf thread resume ${d.thread}`;
        const retry = failed ? `\nTo retry the step: uwf thread resume ${d.thread}` : "";
        return `${lead} — ${d.suspended.reason}${retry}`;
      },
      exitCode,
    );
  },
});
