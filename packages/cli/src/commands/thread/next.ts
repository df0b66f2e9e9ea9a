import type { RunResult } from "@united-workforce/engine";
import { ExitCode, type ThreadExecDocument } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import type { CommandContext, CommandResult } from "../command.js";
import { limitFlags } from "./limits.js";
import { openRunner, progressView, runResult } from "./shared.js";

/** How long an idle fleet worker waits at most between looks for work, unless --poll says. */
const DEFAULT_POLL_MS = 5_000;

/** The options of `thread exec` that make it a fleet worker's claim. */
export const NEXT_OPTIONS = [
  {
    flags: "--next",
    type: "boolean",
    description:
      "claim the oldest runnable thread that no exec holds and run it (exit 5 when there is none)",
  },
  {
    flags: "--workflow <name>",
    type: "string",
    description: "with --next: claim only threads of this workflow",
  },
  {
    flags: "--poll <duration>",
    type: "duration",
    bareUnit: "ms",
    description:
      "with --next --wait: the longest pause between looks for work while none is runnable (pauses start at 100 ms and double; default 5s)",
  },
] as const;

export interface NextOptions {
  next: boolean;
  workflow?: string | undefined;
  poll?: number | undefined;
}

/**
 * `thread exec --next`: one claimed run, its document as any exec's (its `thread` names the
 * thread claimed). With --wait, a fleet worker: each run's result is printed as it ends (text,
 * or one JSON document per line), until a signal stops the worker.
 */
export async function execNext(
  ctx: CommandContext,
  options: NextOptions & {
    count: number;
    agent?: string | undefined;
    maxCost?: string | undefined;
    maxSteps?: number | undefined;
    wait: boolean;
    quiet: boolean;
  },
): Promise<CommandResult<ThreadExecDocument>> {
  if (options.wait && ctx.format === "yaml") {
    throw new UwfError("USAGE", "a worker (--next --wait) prints JSON lines or text, not YAML", {
      hint: "Use --format json (one exec document per line) or the default text.",
    });
  }
  const progress = progressView(ctx, options.quiet);
  const limits = limitFlags(options);
  const runner = await openRunner(ctx, { progress, moves: true });
  const request = {
    count: options.count,
    agent: options.agent,
    limits,
    ...(options.workflow === undefined ? {} : { workflow: options.workflow }),
  };
  try {
    if (!options.wait) {
      const ran = await runner.execNext(request);
      if (ran === null) throw nothingRunnable(options.workflow);
      return runResult(ran, { quiet: options.quiet });
    }
    let last: ThreadExecDocument | null = null;
    const print = (ran: RunResult): void => {
      last = ran.document;
      if (ctx.format === "json") {
        ctx.output(`${JSON.stringify(ran.document)}\n`);
        return;
      }
      const text = runResult(ran, { quiet: options.quiet }).text(ran.document, {
        tty: ctx.columns(1) !== undefined,
        now: Date.now(),
      });
      if (text !== "") ctx.output(`${text}\n`);
    };
    const exitCode = await runner.work(
      { ...request, pollMaxMs: options.poll ?? DEFAULT_POLL_MS },
      print,
    );
    return {
      // Printed run by run; the last run's document stands for the whole.
      document: last ?? stoppedWorker(),
      text: () => "",
      printed: true,
      exitCode,
      // SIGTERM while it waited is how a supervisor stops a worker: a clean end.
      signalHandled: exitCode === ExitCode.ok && ctx.signal.reason === "SIGTERM",
    };
  } finally {
    progress.stop();
  }
}

function nothingRunnable(workflow: string | undefined): UwfError {
  const of = workflow === undefined ? "" : ` of workflow "${workflow}"`;
  return new UwfError("NO_RUNNABLE_THREAD", `no runnable thread${of} is free to claim`, {
    hint: "Start one with `uwf thread start`, or wait for work with `uwf thread exec --next --wait`; `uwf thread list --status idle` shows the idle threads.",
  });
}

/** A worker stopped before it ran anything: its result is printed as nothing. */
function stoppedWorker(): ThreadExecDocument {
  return { thread: "", status: "idle", stoppedBecause: "stopped", message: "", steps: [] };
}
