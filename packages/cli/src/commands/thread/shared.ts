import { ExitCode, type ThreadExecDocument } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
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

/** Exit status of a run: a failed agent is 4, an interrupted run 130. */
export function execExitCode(doc: ThreadExecDocument): number {
  if (doc.stoppedBecause === "failed") return ExitCode.agentFailed;
  if (doc.stoppedBecause === "stopped") return ExitCode.interrupted;
  return ExitCode.ok;
}
