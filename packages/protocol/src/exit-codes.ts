/** Process exit codes (DESIGN §12). */
export const ExitCode = {
  ok: 0,
  error: 1,
  usage: 2,
  invalid: 3,
  agentFailed: 4,
  threadBusy: 5,
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * Stable error codes. Each maps to exactly one exit code here, so no command decides its own
 * exit status.
 */
export const ERROR_EXIT_CODES = {
  USAGE: ExitCode.usage,
  WORKFLOW_INVALID: ExitCode.invalid,
  WORKFLOW_NOT_FOUND: ExitCode.error,
  OUTPUT_INVALID: ExitCode.invalid,
  SCHEMA_INVALID: ExitCode.invalid,
  NODE_INVALID: ExitCode.invalid,
  AGENT_FAILED: ExitCode.agentFailed,
  THREAD_BUSY: ExitCode.threadBusy,
  THREAD_NOT_FOUND: ExitCode.error,
  THREAD_STATE: ExitCode.error,
  THREAD_CORRUPT: ExitCode.error,
  STEP_NOT_FOUND: ExitCode.error,
  HASH_INVALID: ExitCode.usage,
  CAS_NOT_FOUND: ExitCode.error,
  CAS_CORRUPT: ExitCode.error,
  CONFIG_INVALID: ExitCode.error,
  AGENT_UNKNOWN: ExitCode.usage,
  MODERATOR: ExitCode.invalid,
  PATH_UNSAFE: ExitCode.error,
  IO: ExitCode.error,
  INTERRUPTED: ExitCode.interrupted,
  INTERNAL: ExitCode.error,
} as const satisfies Record<string, ExitCode>;

export type ErrorCode = keyof typeof ERROR_EXIT_CODES;

export function exitCodeFor(code: string): ExitCode {
  return (ERROR_EXIT_CODES as Record<string, ExitCode>)[code] ?? ExitCode.error;
}
