import type { ResolvedWorkflow, Runner, RunResult } from "@united-workforce/engine";
import type { ThreadExecDocument } from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { ProgressView } from "../../live/progress.js";
import { progressStyle } from "../../live/terminal.js";
import { type CommandContext, type CommandResult, result } from "../command.js";

/** `--quiet`, for every command that runs or follows steps. */
export const QUIET_OPTION = {
  flags: "-q, --quiet",
  type: "boolean",
  description:
    "no progress on stderr, only the result on stdout (and an agent's failure); exec, resume and poke then list each step run in the result",
} as const;

/**
 * The runner for a command: its runs' events go to the process log (every command's stream
 * writes there) and, with a progress view, to the user as they happen (on stderr).
 */
export async function openRunner(
  ctx: CommandContext,
  options: { progress?: ProgressView | null; moves?: boolean } = {},
): Promise<Runner> {
  const store = await ctx.store();
  // A command that moves threads reads config.yaml before its first run, so that `notify:`
  // subscribers hear its events; the others do not read it for nothing.
  if (options.moves) await ctx.config();
  const { Runner } = await import("@united-workforce/engine");
  const { progress } = options;
  progress?.listen(ctx.events);
  return new Runner({
    store,
    cwd: ctx.cwd,
    config: () => ctx.config(),
    env: ctx.env,
    events: ctx.events,
    signal: ctx.signal,
  });
}

/** Progress on stderr, shown as the terminal (or the lack of one) and `--quiet` allow. */
export function progressView(ctx: CommandContext, quiet: boolean, thread?: string): ProgressView {
  const style = progressStyle({ columns: ctx.columns(2), env: ctx.env, format: ctx.format, quiet });
  return new ProgressView({
    // A view of a named thread follows another process's run of it.
    ...(thread === undefined ? {} : { thread, following: true }),
    ...style,
    write: (text) => ctx.progress(text),
    columns: () => ctx.columns(2) ?? 80,
  });
}

/**
 * The result of a foreground run. The steps and an agent's failure were shown on stderr as
 * they happened, so the text says how the run ended (with the `$END` edge's message when the
 * thread completed) and what to do next; with `--quiet` it lists the steps too.
 */
export function runResult(
  run: RunResult,
  options: { quiet: boolean },
): CommandResult<ThreadExecDocument> {
  const { summary, document } = run;
  if (summary === null) return result(document, renderExec, run.exitCode);
  // What the message adds to the failure progress already showed: the hint and how to retry.
  const next = summary.failure ? document.message.slice(summary.message.length).trim() : "";
  return result(
    document,
    (d) => {
      const lines = options.quiet ? d.steps.map(stepLine) : [];
      if (summary.fanouts !== undefined && summary.pointer.suspended?.kind === "fanout") {
        // Which children failed or wait, and what to do: progress said only that they stopped.
        lines.push(`${d.thread}: ${d.status} — ${d.message}`);
      } else if (d.stoppedBecause === "failed" && !summary.failure && d.steps.length === 0) {
        // No step ran: the failure is an earlier run's (or routing found it), not shown yet.
        lines.push(`${d.thread}: ${d.status} — ${d.message}`);
      } else if (d.stoppedBecause === "failed") {
        // A role's agent or its script: the stderr line above says which and why.
        const role = summary.pointer.suspended?.role;
        const what = summary.failure
          ? role === undefined
            ? "the step failed"
            : `role "${role}" failed`
          : "the step's outcome could not be routed";
        lines.push(`${d.thread}: ${d.status} — ${what} (reported above on stderr)`);
        if (next !== "") lines.push(next);
      } else if (d.endMessage !== undefined) {
        lines.push(`${d.thread}: ${d.status} — ${d.endMessage}`);
      } else {
        lines.push(`${d.thread}: ${d.status} — ${d.message}`);
      }
      return lines.join("\n");
    },
    run.exitCode,
  );
}

/** An exec document as text when no step ran in this process (a background start, a no-op). */
function renderExec(doc: ThreadExecDocument): string {
  const lines = doc.steps.map(stepLine);
  lines.push(`${doc.thread}: ${doc.status} — ${doc.message}`);
  return lines.join("\n");
}

function stepLine(step: ThreadExecDocument["steps"][number]): string {
  return `✓ ${step.role} → ${step.status}  ${step.hash}  (${step.agent}, ${step.durationMs} ms)`;
}

/**
 * The workflow `ref` names, resolved as `thread start` and `reroute` need it: read from a file
 * (includes too) and compiled, but stored only once the command decides to; its warnings shown.
 */
export async function resolveUnstored(
  ctx: CommandContext,
  store: Store,
  ref: string,
): Promise<ResolvedWorkflow> {
  const { validatorCacheDir } = await import("@united-workforce/store");
  const { resolveWorkflow } = await import("@united-workforce/engine");
  const workflow = await resolveWorkflow(ref, {
    cwd: ctx.cwd,
    cas: store.cas,
    registry: store.registry,
    validatorCacheDir: validatorCacheDir(ctx.home),
    deferWrite: true,
  });
  for (const warning of workflow.warnings) ctx.progress(`warning: ${warning}`);
  return workflow;
}
