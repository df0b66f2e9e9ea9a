import type { ErrorCode } from "@united-workforce/protocol";

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
}

export function isUwfError(error: unknown): error is UwfError {
  return error instanceof UwfError;
}

/** A message for any thrown value, for places that must report and carry on. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
