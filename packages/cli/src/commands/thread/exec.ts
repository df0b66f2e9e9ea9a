import type { Engine, PlannedStep } from "@united-workforce/engine";
import { ExitCode, type ThreadExecDocument, type ThreadPointer } from "@united-workforce/protocol";
import type { Lease } from "@united-workforce/store";
import { isoTime, nodeChildProcess } from "@united-workforce/util";
import { errorFields } from "../../output/errors.js";
import { type CommandContext, type CommandResult, defineCommand, result } from "../command.js";
import { LIMIT_OPTIONS, limitFlags, runLimits } from "./limits.js";
import {
  execExitCode,
  execResult,
  openEngine,
  progressView,
  QUIET_OPTION,
  renderExec,
} from "./shared.js";

export default defineCommand({
  path: ["thread", "exec"],
  interruptible: true,
  summary: "run the next step(s) of a thread, then exit",
  description: [
    "Stops early when the thread completes, suspends (a question or a failed agent) or is stopped, and says why. A second exec on the same thread fails at once with exit 5. A thread suspended after transient agent failures (kind retry) runs again with --wait, once its retry-after time has come. A fan-out counts as one step: its children run (concurrency at a time) until each completes or stops, then uwf writes the join step; a parent waiting on its children (kind fanout) looks at them again.",
    "On a thread that a failed agent left suspended, exec runs nothing and exits 4 again with the reason (`uwf thread resume` retries the step; the command it suggests carries the --agent given to exec, which runs nothing itself); on a cancelled thread it runs nothing and exits 130, as `uwf thread join` does; on one waiting for an answer, a budget or a guard it exits 0 and says how to go on.",
    "With --background, what would stop a foreground exec before its first step (the thread's state, an unknown agent or none configured, a config.yaml it cannot read) is reported at once, with the same exit code. The worker logs how its run ended in the process log, where `uwf thread join` and `uwf thread watch` find it and exit as the exec would have.",
  ].join("\n"),
  args: [{ name: "thread", type: "thread", description: "thread id" }],
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
        "a thread suspended after transient agent failures (rate limits) waits until its retry-after time, then runs the step again",
    },
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
  ],
  async run(ctx, [thread], options) {
    // How a foreground run ended goes to the process log too, so that a later `thread join` or
    // `watch` exits as it did (130 after a Ctrl-C) instead of guessing from the thread's state.
    // Its errors are its own to print: only a worker, which has no terminal, logs those.
    if (options.worker === undefined) {
      return execThread(ctx, thread!, options, runReport(ctx, thread!, { errors: false }));
    }
    // A background worker has no terminal: how its run ended goes to the process log, where
    // `thread join` and `thread watch` read it, before the worker lets its lease go or exits.
    const report = runReport(ctx, thread!, { errors: true });
    try {
      return await execThread(ctx, thread!, options, report);
    } catch (error) {
      report.failed(error);
      throw error;
    }
  },
});

interface ExecOptions {
  count: number;
  quiet: boolean;
  agent?: string | undefined;
  background?: boolean | undefined;
  wait?: boolean | undefined;
  worker?: string | undefined;
  maxCost?: string | undefined;
  maxSteps?: number | undefined;
}

async function execThread(
  ctx: CommandContext,
  thread: string,
  options: ExecOptions,
  report: RunReport,
): Promise<CommandResult<ThreadExecDocument>> {
  const { checkFirstStep, runSteps, takeThread, terminalReason, waitsOnFanout } = await import(
    "@united-workforce/engine"
  );
  const count = options.count;
  const { worker } = options;
  // A background worker has no terminal: a follower reads its events from the process log.
  const progress = worker || options.background ? null : progressView(ctx, options.quiet);
  const engine = await openEngine(ctx, { progress });
  const { store } = engine;
  const { workflow } = await store.threads.get(thread);
  // Checked now (a bad --max-cost is a usage error before anything runs); config read later.
  const flags = limitFlags(options);
  const lease = worker
    ? await store.leases.adopt(thread, worker)
    : await takeThread(store, thread, "uwf thread exec");
  // Read again under the lease: what runs now follows from this pointer.
  const background = options.background === true && !worker;
  const held = options.wait || background ? await store.threads.get(thread) : null;
  const waitFor = options.wait ? await retryWait(engine, held!) : null;
  if (background) {
    const pointer = held!;
    try {
      // A parent waiting on its fan-out looks at its children again.
      const terminal =
        waitFor === null && !waitsOnFanout(pointer) ? terminalReason(pointer, options.agent) : null;
      if (terminal) {
        // Nothing would run: say so now rather than start a worker that does nothing.
        await lease.release();
        const doc: ThreadExecDocument = {
          thread: pointer.thread,
          status: pointer.status,
          stoppedBecause: terminal.because,
          message: terminal.message,
          steps: [],
        };
        return result(doc, renderExec, execExitCode(doc));
      }
      // What a foreground exec would refuse before its first step is refused here too, with
      // the same error and exit code: a worker has no terminal to say it on.
      await checkFirstStep(engine, pointer, {
        agentFlag: options.agent,
        ...(waitFor === null ? {} : { first: waitFor.plan }),
      });
      await runLimits(ctx, workflow, flags);
    } catch (error) {
      await lease.release();
      throw error;
    }
    return startBackground(ctx, thread, count, options, lease);
  }
  try {
    let first: PlannedStep | undefined;
    if (waitFor !== null) {
      const ms = Date.parse(waitFor.retryAfter) - Date.now();
      if (ms > 0) {
        // Progress says it here; the process log tells a follower of a background worker, and
        // `thread stop` ends the wait.
        ctx.events.emit("exec.wait", {
          thread,
          role: waitFor.plan.role,
          retryAfter: waitFor.retryAfter,
        });
      }
      await sleepUntil(ms, ctx.signal);
      first = waitFor.plan;
    }
    const summary = await runSteps(engine, thread, {
      count,
      agentFlag: options.agent,
      lease,
      limits: () => runLimits(ctx, workflow, flags),
      ...(first === undefined ? {} : { first: () => first }),
    });
    const outcome = await execResult(engine, summary, { quiet: options.quiet });
    report.ended(outcome);
    return outcome;
  } catch (error) {
    report.failed(error);
    throw error;
  } finally {
    progress?.stop();
    await lease.release();
  }
}

/**
 * How a run ended, logged once: `exec.end`, or (`errors`: a background worker's) `exec.error`
 * when it threw.
 */
interface RunReport {
  ended(outcome: CommandResult<ThreadExecDocument>): void;
  failed(error: unknown): void;
}

function runReport(
  ctx: CommandContext,
  thread: string,
  { errors }: { errors: boolean },
): RunReport {
  let reported = false;
  return {
    ended({ document: doc, exitCode }) {
      if (reported) return;
      reported = true;
      ctx.events.emit("exec.end", {
        thread,
        status: doc.status,
        stoppedBecause: doc.stoppedBecause,
        steps: doc.steps.length,
        message: doc.message,
        exitCode: exitCode ?? ExitCode.ok,
      });
    },
    failed(thrown) {
      if (reported || !errors) return;
      reported = true;
      // As the entry would print it, so `thread join` can report the same error.
      const { code, message, hint, exitCode } = errorFields(thrown);
      ctx.events.emit("exec.error", { thread, code, message, hint, exitCode });
    },
  };
}

/**
 * The step a thread suspended after transient agent failures runs again, and from when; null
 * for a thread in any other state (exec then runs as without --wait).
 */
async function retryWait(
  engine: Engine,
  pointer: ThreadPointer,
): Promise<{ retryAfter: string; plan: PlannedStep } | null> {
  const info = pointer.suspended;
  if (pointer.status !== "suspended" || info?.kind !== "retry") return null;
  const { rerunStep } = await import("@united-workforce/engine");
  const retryAfter = info.retryAfter ?? isoTime(0);
  // A poke that failed transiently replaces the head when it runs again.
  return { retryAfter, plan: await rerunStep(engine, pointer, info, info.prompt ?? info.reason) };
}

/** Wait `ms` (nothing when not positive), or until the command is interrupted. */
function sleepUntil(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((done) => {
    if (ms <= 0 || signal.aborted) return done();
    const finish = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", finish);
      done();
    };
    const timer = setTimeout(finish, ms);
    signal.addEventListener("abort", finish, { once: true });
  });
}

/**
 * Hand the lease to a detached worker: it is visible as `running` from this moment, and
 * `join`/`stop` find the worker through the lease.
 */
async function startBackground(
  ctx: CommandContext,
  thread: string,
  count: number,
  options: ExecOptions,
  lease: Lease,
) {
  const args = [
    ...ctx.self.slice(1),
    "thread",
    "exec",
    thread,
    "-c",
    String(count),
    "--worker",
    lease.token,
  ];
  if (typeof options.agent === "string") args.push("--agent", options.agent);
  if (options.maxCost !== undefined) args.push("--max-cost", String(options.maxCost));
  if (options.maxSteps !== undefined) args.push("--max-steps", String(options.maxSteps));
  if (options.wait) args.push("--wait");
  // Loaded here, not at the top: `uwf --help` loads every command module, and neither a help
  // text nor a foreground exec needs them.
  const { processIdentity } = await import("@united-workforce/store");
  let pid: number;
  try {
    const child = nodeChildProcess().spawn(ctx.self[0]!, args, {
      cwd: ctx.cwd,
      env: ctx.env as NodeJS.ProcessEnv,
      detached: true,
      stdio: "ignore",
    });
    if (child.pid === undefined) throw new Error("the worker did not start");
    pid = child.pid;
    await lease.transfer({ ...lease.info().holder, ...processIdentity(pid) });
    child.unref();
  } catch (error) {
    await lease.release();
    throw error;
  }
  ctx.events.emit("exec.background", { thread, worker: pid, count });
  const doc: ThreadExecDocument = {
    thread,
    status: "running",
    stoppedBecause: "background",
    message: `running in the background (pid ${pid}); follow it with \`uwf thread watch ${thread}\`, or wait with \`uwf thread join ${thread}\``,
    steps: [],
    pid,
  };
  return result(doc, renderExec);
}
