import { ExitCode, type ThreadWatchDocument } from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";
import { openRunner, progressView, QUIET_OPTION } from "./shared.js";

export default defineCommand({
  path: ["thread", "watch"],
  interruptible: true,
  summary: "follow a thread's running exec (e.g. one started with --background) until it ends",
  description: [
    "Says what the thread is doing now, then shows its steps as they run, and those of its fan-outs' children at any depth, as exec shows its own (live on a terminal, timestamped lines elsewhere), until the exec ends. A thread that is not running is described at once.",
    "Exit code: as `uwf thread join`'s, the exec's own as if it had run in the foreground: 0 when the thread is completed, idle or waiting for an answer; 4 when an agent failed (the thread is suspended until `uwf thread resume`); 130 when the exec was stopped or the thread cancelled; a background exec's error (e.g. 2 for an unknown agent). 130 too when the watch itself is interrupted (the exec goes on).",
  ].join("\n"),
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  options: [QUIET_OPTION],
  examples: ["uwf thread exec 01JD… -c 10 --background && uwf thread watch 01JD…"],
  async run(ctx, [thread], options) {
    const { followThread } = await import("../../live/follow-thread.js");
    const { terminalReason } = await import("@united-workforce/engine");
    const runner = await openRunner(ctx);
    const { store } = runner;
    await store.threads.get(thread!);
    const lease = await store.leases.read(thread!);
    const followed = lease?.alive === true;
    if (lease?.alive) {
      const { info } = lease;
      const progress = progressView(ctx, options.quiet, thread!);
      await followThread({
        home: ctx.home,
        thread: thread!,
        progress,
        signal: ctx.signal,
        ended: runner.waitForRelease(thread!, null),
        since: info.acquiredAt,
        announce: (current) => {
          if (options.quiet) return;
          // The step under way may be a fan-out child's.
          const where =
            current !== null && current.thread !== thread ? ` of thread ${current.thread}` : "";
          const now =
            current?.event === "step.start"
              ? `running step ${current.stepNumber}${where}, role "${current.role}" (${current.agent})`
              : "running, no step under way yet";
          ctx.progress(
            `Watching thread ${thread}: ${now}; exec pid ${info.holder.pid} (\`${info.command}\`) since ${info.acquiredAt}. Ctrl-C stops watching, not the exec.`,
          );
        },
      });
    }
    const pointer = await store.threads.get(thread!);
    // How the run ended, as `thread join` reports it; an interrupted watch says only that.
    const end = ctx.signal.aborted
      ? { exitCode: ExitCode.interrupted, stopped: null }
      : runner.lastRun(pointer);
    const { stopped } = end;
    const doc: ThreadWatchDocument = {
      thread: pointer.thread,
      status: pointer.status,
      head: pointer.head,
      steps: pointer.steps,
      suspended: pointer.suspended,
      followed,
    };
    if (pointer.status === "completed") {
      const message = await runner.endMessage(pointer);
      if (message !== null) doc.endMessage = message;
    }
    // Interrupted, the watch leaves an exec that goes on.
    if ((await store.leases.read(thread!))?.alive) doc.status = "running";
    const next = terminalReason(pointer)?.message ?? null;
    return result(
      doc,
      (d) => {
        const lead = d.followed
          ? `${d.thread}: ${d.status}`
          : `${d.thread} is not running: ${d.status}`;
        const steps = `${d.steps} step${d.steps === 1 ? "" : "s"}`;
        if (ctx.signal.aborted) return `${lead} — stopped watching; the exec goes on`;
        if (stopped !== null) return `${lead} after ${steps} — ${stopped}`;
        if (d.endMessage !== undefined) return `${lead} after ${steps} — ${d.endMessage}`;
        // The failure was shown as it happened; the result only says what to do.
        if (d.followed && d.suspended?.kind === "failure")
          return `${lead} after ${steps} — role "${d.suspended.role}" failed (reported above on stderr). To retry the step: uwf thread resume ${d.thread}`;
        if (next !== null) return `${lead} after ${steps} — ${next}`;
        return `${lead} after ${steps}. Run its next step with: uwf thread exec ${d.thread}`;
      },
      end.exitCode,
    );
  },
});
