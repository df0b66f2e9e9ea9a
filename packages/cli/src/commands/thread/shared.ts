import { ExitCode, type ThreadExecDocument } from "@united-workforce/protocol";
import { Engine } from "../../threads/engine.js";
import type { CommandContext } from "../command.js";

/** A background worker has no terminal: adapter progress goes to the process log instead. */
export function openEngine(ctx: CommandContext, options: { detached?: boolean } = {}): Engine {
  return new Engine({
    home: ctx.home,
    env: ctx.env,
    logger: ctx.logger,
    progress: options.detached
      ? (text) => ctx.logger.info("adapter.stderr", { text })
      : ctx.progress,
    signal: ctx.signal,
  });
}

export function renderExec(doc: ThreadExecDocument): string {
  const lines = doc.steps.map(
    (s) => `✓ ${s.role} → ${s.status}  ${s.hash}  (${s.agent}, ${s.durationMs} ms)`,
  );
  lines.push(`${doc.thread}: ${doc.status} — ${doc.message}`);
  return lines.join("\n");
}

/** Exit status of a run: a failed agent (the thread is suspended) or an interrupted run. */
export function execExitCode(doc: ThreadExecDocument): ExitCode {
  if (doc.stoppedBecause === "failed") return ExitCode.agentFailed;
  if (doc.stoppedBecause === "stopped") return ExitCode.interrupted;
  return ExitCode.ok;
}
