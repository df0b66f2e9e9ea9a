import { docsUrl, nodeChildProcess, UwfError } from "@united-workforce/util";
import { type CommandContext, defineCommand } from "../command.js";
import { LIMIT_OPTIONS, limitFlags } from "./limits.js";
import { execNext, NEXT_OPTIONS, type NextOptions } from "./next.js";
import { openRunner, progressView, QUIET_OPTION, runResult } from "./shared.js";

export default defineCommand({
  path: ["thread", "exec"],
  interruptible: true,
  summary: "run the next step(s) of a thread, then exit",
  description: [
    "Stops early when the thread completes, suspends (a question or a failed agent) or is stopped, and says why. A second exec on the same thread fails at once with exit 5. A thread suspended after transient agent failures (kind retry) runs again with --wait, once its retry-after time has come. A fan-out counts as one step: its children run (concurrency at a time) until each completes or stops, then uwf writes the join step; a parent waiting on its children (kind fanout) looks at them again.",
    "On a thread that a failed agent left suspended, exec runs nothing and exits 4 again with the reason (`uwf thread resume` retries the step; the command it suggests carries the --agent given to exec, which runs nothing itself); on a cancelled thread it runs nothing and exits 130, as `uwf thread join` does; on one waiting for an answer, a budget or a guard it exits 0 and says how to go on.",
    "With --next, exec runs no thread named by hand: it claims the oldest runnable thread (idle, with a role to run; not waiting for a human, a budget, a guard or a retry time; not a fan-out's child) that no live exec holds, and runs it as `uwf thread exec <id>` would, up to -c steps, then releases it. Claims are atomic: workers on many machines sharing one PostgreSQL store (or processes sharing a filesystem home) never run one thread at once. When no thread is runnable it exits 5 (NO_RUNNABLE_THREAD). With --next --wait it is a fleet worker: it claims and runs threads one after another, and while none is runnable waits for one (looking again at most every --poll), until SIGTERM, SIGINT or SIGHUP; a signal while a step runs stops the step as it stops any exec (exit 130), SIGTERM while it waits ends it with exit 0.",
    "With --background, what would stop a foreground exec before its first step (the thread's state, an unknown agent or none configured, a config.yaml it cannot read) is reported at once, with the same exit code. The worker logs how its run ended in the process log, where `uwf thread join` and `uwf thread watch` find it and exit as the exec would have.",
  ].join("\n"),
  args: [
    {
      name: "thread",
      type: "thread",
      description: "thread id (none with --next)",
      required: false,
    },
  ],
  options: [
    {
      flags: "-c, --count <n>",
      type: "integer",
      min: 1,
      description: "run up to n steps",
      default: "1",
      hint: "Say how many steps to run at most, e.g. --count 5.",
    },
    {
      flags: "--agent <alias|command>",
      type: "string",
      description:
        "agent for these steps: an alias, a command on PATH, or a path from here; the thread remembers it",
    },
    ...LIMIT_OPTIONS,
    {
      flags: "--wait",
      type: "boolean",
      description:
        "a thread suspended after transient agent failures (rate limits) waits until its retry-after time, then runs the step again; with --next: keep claiming threads, waiting for one while none is runnable",
    },
    ...NEXT_OPTIONS,
    {
      flags: "--background",
      type: "boolean",
      description: "run in a detached worker and return at once",
    },
    QUIET_OPTION,
    {
      flags: "--worker <token>",
      type: "string",
      description: "internal: adopt the lock a background exec made",
      hidden: true,
    },
  ],
  examples: [
    "uwf thread exec 01JD… -c 10",
    'uwf thread exec 01JD… --agent "uwf-mock --scenario s.yaml"',
    "uwf thread exec 01JD… --agent uwf-claude-code",
    "uwf thread exec 01JD… -c 50 --max-cost 5 --max-steps 20",
    "uwf thread exec 01JD… -c 20 --wait",
    "uwf thread exec --next -c 50",
    "uwf thread exec --next --wait --workflow triage -c 50",
  ],
  async run(ctx, [thread], options) {
    checkTarget(thread, options);
    if (options.next) return execNext(ctx, options);
    // A background worker has no terminal: a follower reads its events from the process log.
    const background = options.background === true && options.worker === undefined;
    const progress =
      options.worker !== undefined || background ? null : progressView(ctx, options.quiet);
    // Checked now (a bad --max-cost is a usage error before anything runs); config read later.
    const limits = limitFlags(options);
    const runner = await openRunner(ctx, { progress, moves: true });
    const request = {
      count: options.count,
      agent: options.agent,
      limits,
      wait: options.wait === true,
    };
    try {
      if (background) {
        const started = await runner.background(thread!, request, (token) =>
          startWorker(ctx, thread!, options, token),
        );
        return runResult(started, { quiet: options.quiet });
      }
      const ran = await runner.exec(thread!, {
        ...request,
        ...(options.worker === undefined ? {} : { worker: options.worker }),
      });
      return runResult(ran, { quiet: options.quiet });
    } finally {
      progress?.stop();
    }
  },
});

/** A thread named, or --next; the options that only --next takes only with it. */
function checkTarget(
  thread: string | undefined,
  options: NextOptions & { background?: boolean; worker?: string | undefined },
): void {
  if (options.next) {
    if (thread !== undefined) {
      throw new UwfError("USAGE", "--next claims a thread itself: name none", {
        hint: "uwf thread exec <thread>, or uwf thread exec --next",
      });
    }
    if (options.background || options.worker !== undefined) {
      throw new UwfError("USAGE", "--next runs in the foreground: it takes no --background", {
        hint: `Run workers under a supervisor (systemd, Kubernetes, CI jobs): see ${docsUrl("fleets.md")}`,
      });
    }
    return;
  }
  if (thread === undefined) {
    throw new UwfError("USAGE", "name the thread to run, or pass --next", {
      hint: "uwf thread exec <thread>, or uwf thread exec --next to claim the oldest runnable one",
    });
  }
  const only =
    options.workflow !== undefined ? "--workflow" : options.poll !== undefined ? "--poll" : null;
  if (only !== null) {
    throw new UwfError("USAGE", `${only} goes with --next`, {
      hint: `uwf thread exec --next ${only} …`,
    });
  }
}

/**
 * Start the detached worker a background exec hands its lease to: this same CLI, running
 * `thread exec` with `--worker <token>` and the options given. Resolves with its pid.
 */
async function startWorker(
  ctx: CommandContext,
  thread: string,
  options: {
    count: number;
    agent?: string | undefined;
    maxCost?: string | undefined;
    maxSteps?: number | undefined;
    wait?: boolean | undefined;
  },
  token: string,
): Promise<number> {
  const args = [...ctx.self.slice(1), "thread", "exec", thread, "-c", String(options.count)];
  args.push("--worker", token);
  if (typeof options.agent === "string") args.push("--agent", options.agent);
  if (options.maxCost !== undefined) args.push("--max-cost", String(options.maxCost));
  if (options.maxSteps !== undefined) args.push("--max-steps", String(options.maxSteps));
  if (options.wait) args.push("--wait");
  const child = nodeChildProcess().spawn(ctx.self[0]!, args, {
    cwd: ctx.cwd,
    env: ctx.env as NodeJS.ProcessEnv,
    detached: true,
    stdio: "ignore",
  });
  if (child.pid === undefined) throw new Error("the worker did not start");
  child.unref();
  return child.pid;
}
