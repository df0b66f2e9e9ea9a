import type { DocumentOf, ExitCode, ThreadExecDocument } from "@united-workforce/protocol";
import type { RunLimits } from "@united-workforce/store";
import type { ExecSummary } from "./summary.js";

/** How a run is bounded and run: what every use case that runs steps takes. */
export interface RunRequest {
  /** Run up to this many steps (default 1). */
  count?: number;
  /** `--agent`: an alias, a command on PATH, or a path; the thread remembers it. */
  agent?: string | undefined;
  /** This run's budget, over config.yaml's `limits.<workflow>` (a flag may raise a limit). */
  limits?: RunLimits;
}

/** What a run came to: how it ended, its document, and the exit code the CLI exits with. */
export interface RunResult {
  summary: ExecSummary | null;
  document: ThreadExecDocument;
  exitCode: ExitCode;
}

export type AnswerDocument = DocumentOf<"thread answer">;
