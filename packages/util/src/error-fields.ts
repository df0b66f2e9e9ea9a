import { exitCodeFor } from "@united-workforce/protocol";
import { errorMessage, isUwfError } from "./errors.js";
import { ioError, isErrnoError } from "./fs/io-error.js";

/** What a command's failure is to a user or a script. */
export interface ErrorFields {
  code: string;
  message: string;
  hint: string | null;
  exitCode: number;
  details: Record<string, unknown> | undefined;
}

/**
 * What a command's failure is to a user or a script: its stable code, message, hint and exit
 * code. The CLI prints these, and a background run logs them, so `join` reports the error the
 * exec would have printed.
 */
export function errorFields(
  thrown: unknown,
  /** Where an unexpected error was logged, with its stack, for the report the hint asks for. */
  logFile?: string,
): ErrorFields {
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

/** Whether an error is one uwf did not expect: a bug, reported with its stack in the log. */
export function isInternal(thrown: unknown): boolean {
  return !isUwfError(asExpected(thrown));
}

/**
 * A failed system call that no layer wrapped (a full disk under the store, a folder it may not
 * enter) is an I/O problem with a file the user can act on, not a bug in uwf.
 */
function asExpected(error: unknown): unknown {
  if (isUwfError(error) || !isErrnoError(error)) return error;
  return ioError(error);
}
