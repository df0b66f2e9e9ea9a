import type { ErrorCode } from "@united-workforce/protocol";

/**
 * Marks uwf's errors whichever copy of this package made them: a backend package loaded beside a
 * bundled binary (`@united-workforce/store-postgres`) brings its own copy, and its errors must
 * still count as uwf's, with their code, hint and exit code.
 */
const UWF_ERROR: unique symbol = Symbol.for("@united-workforce/util/UwfError");

/** Every expected failure is one of these: a stable code, what happened, what to do next. */
export class UwfError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | null;
  /** Extra structured facts for JSON output and logs (e.g. the holder pid of a lock). */
  readonly details: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { hint?: string | null; cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "UwfError";
    this.code = code;
    this.hint = options.hint ?? null;
    this.details = options.details;
  }

  get [UWF_ERROR](): true {
    return true;
  }
}

/** Whether `error` is a UwfError, from this copy of the package or another (see UWF_ERROR). */
export function isUwfError(error: unknown): error is UwfError {
  return (error as { [UWF_ERROR]?: unknown } | null | undefined)?.[UWF_ERROR] === true;
}

/** A message for any thrown value, for places that must report and carry on. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
