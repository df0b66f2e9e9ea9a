import { Engine } from "@united-workforce/engine";
import { ExitCode, type ThreadExecDocument } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import type { CommandContext } from "../command.js";

/**
 * The engine for a command, its events rendered for the user: adapter output goes to stderr as
 * progress, or to the process log for a background worker, which has no terminal.
 */
export async function openEngine(
  ctx: CommandContext,
  options: { detached?: boolean } = {},
): Promise<Engine> {
  const store = await ctx.store();
  return new Engine({
    store,
    config: await ctx.config(),
    env: ctx.env,
    logger: ctx.logger,
    signal: ctx.signal,
    onEvent: (event) => {
      if (event.type !== "adapter.output") return;
      if (options.detached) ctx.logger.info("adapter.stderr", { text: event.line });
      else ctx.progress(event.line);
    },
  });
}

export function parseCount(value: unknown, flag = "--count"): number {
  const count = Number(value ?? 1);
  if (!Number.isInteger(count) || count < 1) {
    throw new UwfError("USAGE", `${flag} must be a whole number ≥ 1, got "${value}"`, {
      hint: `Say how many steps to run at most, e.g. ${flag} 5.`,
    });
  }
  return count;
}

export function requiredText(value: unknown, flag: string, hint: string): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new UwfError("USAGE", `${flag} is required and must not be empty`, { hint });
  }
  return value;
}

export function renderExec(doc: ThreadExecDocument): string {
  const lines = doc.steps.map(
    (s) => `✓ ${s.role} → ${s.status}  ${s.hash}  (${s.agent}, ${s.durationMs} ms)`,
  );
  lines.push(`${doc.thread}: ${doc.status} — ${doc.message}`);
  return lines.join("\n");
}

/** Exit status of a run: a failed agent is "agent failed", an interrupted run "interrupted". */
export function execExitCode(doc: ThreadExecDocument): number {
  if (doc.stoppedBecause === "failed") return ExitCode.agentFailed;
  if (doc.stoppedBecause === "stopped") return ExitCode.interrupted;
  return ExitCode.ok;
}
