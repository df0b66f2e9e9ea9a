import { type ErrorDocument, exitCodeFor } from "@united-workforce/protocol";
import { errorMessage, ioError, isErrnoError, isUwfError } from "@united-workforce/util";
import type { OutputFormat } from "../commands/command.js";

export interface RenderedError {
  text: string;
  exitCode: number;
}

/**
 * Errors go to stderr: a message and what to do next, or under `--format json|yaml` the error
 * document (DESIGN §13) in that format, with the process's exit code beside the stable code.
 */
export function renderError(
  thrown: unknown,
  format: OutputFormat,
  logFile?: string,
): RenderedError {
  const { code, message, hint, exitCode, details } = errorFields(thrown, logFile);
  if (format !== "text") {
    const doc: ErrorDocument = { error: { code, message, hint, exitCode, ...details } };
    return { text: format === "json" ? `${JSON.stringify(doc)}\n` : yamlOf(doc.error), exitCode };
  }
  const lines = [`error: ${message}`];
  if (hint) lines.push(`hint: ${hint}`);
  return { text: `${lines.join("\n")}\n`, exitCode };
}

/**
 * What a command's failure is to a user or a script: its stable code, message, hint and exit
 * code. A background worker logs these, so `join` reports the error the exec would have printed.
 */
/** Whether an error is one uwf did not expect: a bug, reported with its stack in the log. */
export function isInternal(thrown: unknown): boolean {
  return !isUwfError(asExpected(thrown));
}

export function errorFields(
  thrown: unknown,
  /** Where an unexpected error was logged, with its stack, for the report the hint asks for. */
  logFile?: string,
): {
  code: string;
  message: string;
  hint: string | null;
  exitCode: number;
  details: Record<string, unknown> | undefined;
} {
  const error = asExpected(thrown);
  const code = isUwfError(error) ? error.code : "INTERNAL";
  return {
    code,
    message: errorMessage(error),
    hint: isUwfError(error)
      ? error.hint
      : `This is a bug in uwf. Please report it with the command you ran and ${logFile === undefined ? "the log under $UWF_HOME/logs" : `the log ${logFile}`}.`,
    exitCode: exitCodeFor(code),
    details: isUwfError(error) ? error.details : undefined,
  };
}

/**
 * A failed system call that no layer wrapped (a full disk under the store, a folder it may not
 * enter) is an I/O problem with a file the user can act on, not a bug in uwf.
 */
function asExpected(error: unknown): unknown {
  if (isUwfError(error) || !isErrnoError(error)) return error;
  return ioError(error);
}

/**
 * The error document as YAML without loading a YAML library on the way out: every value is
 * written as JSON, which YAML reads as the same value (JSON is a subset of YAML 1.2).
 */
function yamlOf(error: Record<string, unknown>): string {
  const lines = ["error:"];
  for (const [key, value] of Object.entries(error)) {
    if (value !== undefined) lines.push(`  ${key}: ${JSON.stringify(value)}`);
  }
  return `${lines.join("\n")}\n`;
}
