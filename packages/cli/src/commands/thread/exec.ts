import type { ThreadExecDocument } from "@united-workforce/protocol";
import type { Lease } from "@united-workforce/store";
import { nodeChildProcess } from "@united-workforce/util";
import { type CommandContext, defineCommand, result } from "../command.js";
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
  description:
    "Stops early when the thread completes, suspends (a question or a failed agent) or is stopped, and says why. A second exec on the same thread fails at once with exit 5.",
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
  ],
  async run(ctx, [thread], options) {
    const { runSteps, takeThread, terminalReason } = await import("@united-workforce/engine");
    const count = options.count;
    const worker = options.worker as string | undefined;
    // A background worker has no terminal: a follower reads its events from the process log.
    const progress = worker || options.background ? null : progressView(ctx, options.quiet);
    const engine = await openEngine(ctx, { progress });
    const { store } = engine;
    const { workflow } = await store.threads.get(thread!);
    // Checked now (a bad --max-cost is a usage error before anything runs); config read later.
    const flags = limitFlags(options);
    const lease = worker
      ? await store.leases.adopt(thread!, worker)
      : await takeThread(store, thread!, "uwf thread exec");
    if (options.background && !worker) {
      // Nothing would run: say so now rather than start a worker that does nothing.
      const pointer = await store.threads.get(thread!);
      const terminal = terminalReason(pointer);
      if (!terminal) return startBackground(ctx, thread!, count, options, lease);
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
    try {
      const summary = await runSteps(engine, thread!, {
        count,
        agentFlag: options.agent as string | undefined,
        lease,
        limits: () => runLimits(ctx, workflow, flags),
      });
      return await execResult(engine, summary, { quiet: options.quiet });
    } finally {
      progress?.stop();
      await lease.release();
    }
  },
});

/**
 * Hand the lease to a detached worker: it is visible as `running` from this moment, and
 * `join`/`stop` find the worker through the lease.
 */
async function startBackground(
  ctx: CommandContext,
  thread: string,
  count: number,
  options: Record<string, unknown>,
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
  ctx.logger.info("exec.background", { thread, worker: pid, count });
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
