import type { Engine } from "@united-workforce/engine";
import { ExitCode, type ThreadExecDocument } from "@united-workforce/protocol";
import type { CommandContext } from "../command.js";

/**
 * The engine for a command, its events rendered for the user: adapter output goes to stderr as
 * progress. A background worker has no terminal; the engine logs every event anyway.
 */
export async function openEngine(
  ctx: CommandContext,
  options: { detached?: boolean } = {},
): Promise<Engine> {
  const store = await ctx.store();
  const { Engine } = await import("@united-workforce/engine");
  return new Engine({
    store,
    cwd: ctx.cwd,
    config: () => ctx.config(),
    env: ctx.env,
    logger: ctx.logger,
    signal: ctx.signal,
    onEvent: (event) => {
      if (event.type === "adapter.output" && !options.detached) ctx.progress(event.line);
    },
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
