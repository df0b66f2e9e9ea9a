import { type ErrorDocument, exitCodeFor } from "@united-workforce/protocol";
import { errorMessage, ioError, isErrnoError, isUwfError } from "@united-workforce/util";
import type { OutputFormat } from "../commands/command.js";

export interface RenderedError {
  text: string;
  exitCode: number;
}

/** Errors go to stderr: a message and what to do next, or a JSON object with a stable code. */
export function renderError(thrown: unknown, format: OutputFormat): RenderedError {
  const error = asExpected(thrown);
  const code = isUwfError(error) ? error.code : "INTERNAL";
  const message = errorMessage(error);
  const hint = isUwfError(error)
    ? error.hint
    : "This is a bug in uwf. Please report it with the command you ran and the log under $UWF_HOME/logs.";
  const exitCode = exitCodeFor(code);
  if (format === "json") {
    const doc: ErrorDocument = { error: { code, message, hint } };
    const details = isUwfError(error) ? error.details : undefined;
    return {
      text: `${JSON.stringify(details ? { error: { ...doc.error, ...details } } : doc)}\n`,
      exitCode,
    };
  }
  const lines = [`error: ${message}`];
  if (hint) lines.push(`hint: ${hint}`);
  return { text: `${lines.join("\n")}\n`, exitCode };
}

/**
 * A failed system call that no layer wrapped (a full disk under the store, a folder it may not
 * enter) is an I/O problem with a file the user can act on, not a bug in uwf.
 */
function asExpected(error: unknown): unknown {
  if (isUwfError(error) || !isErrnoError(error)) return error;
  return ioError(error);
}
