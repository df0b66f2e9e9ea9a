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
 * The exit code an adapter uses when its agent failed in a way that may pass: a rate limit,
 * an HTTP 429 or 5xx, a usage limit (EX_TEMPFAIL of sysexits.h). uwf retries the step with
 * backoff (config.yaml `retry`); a `retry-after: <seconds>` line on stderr asks for a longer
 * wait. uwf itself never exits with it.
 */
export const ADAPTER_TRANSIENT_EXIT = 75;

/**
 * The environment variable naming the step's store that uwf serves an adapter over a Unix
 * socket (docs/adapter-protocol.md): the adapter reads the thread and writes its nodes through
 * uwf's own connection instead of opening the store a second time. Set only when the store is
 * not on this machine's filesystem; an adapter may ignore it and open the store itself.
 */
export const STEP_STORE_ENV = "UWF_STEP_STORE";

/** What each exit code tells a caller; docs/cli.md and `uwf prompt usage` print this table. */
export const EXIT_CODE_MEANINGS: Readonly<Record<ExitCode, string>> = {
  [ExitCode.ok]: "ok",
  [ExitCode.error]: "error (not found, corrupt store, I/O, …)",
  [ExitCode.usage]:
    "usage (bad flag or argument, unknown agent alias, thread inputs the workflow refuses)",
  [ExitCode.invalid]: "invalid workflow or invalid output",
  [ExitCode.agentFailed]:
    "a step failed: the thread is suspended; a failed agent leaves the head where it was, a step whose outcome could not be routed is kept (`thread resume` runs its role again)",
  [ExitCode.threadBusy]:
    "thread busy: another exec holds its lock (`thread exec --next`: no thread is free to claim)",
  [ExitCode.interrupted]:
    "interrupted: Ctrl-C, SIGTERM or SIGHUP while an exec, resume, poke or join runs, or its output was closed (the agent is stopped, the lock released, the head unchanged)",
};

/**
 * Stable error codes. Each maps to exactly one exit code here, so no command decides its own
 * exit status.
 */
export const ERROR_EXIT_CODES = {
  USAGE: ExitCode.usage,
  WORKFLOW_INVALID: ExitCode.invalid,
  WORKFLOW_NOT_FOUND: ExitCode.error,
  OUTPUT_INVALID: ExitCode.invalid,
  /** `thread start --input/--inputs` values the workflow's `inputs:` schema refuses. */
  INPUT_INVALID: ExitCode.usage,
  /**
   * `thread start --event` of an event the workflow's `on.github.events` does not list, or for
   * a workflow that declares no GitHub trigger; nothing is started.
   */
  EVENT_NOT_DECLARED: ExitCode.usage,
  SCHEMA_INVALID: ExitCode.invalid,
  NODE_INVALID: ExitCode.invalid,
  AGENT_FAILED: ExitCode.agentFailed,
  THREAD_BUSY: ExitCode.threadBusy,
  /** `thread exec --next` without --wait: no runnable thread is free to claim. */
  NO_RUNNABLE_THREAD: ExitCode.threadBusy,
  THREAD_NOT_FOUND: ExitCode.error,
  THREAD_STATE: ExitCode.error,
  THREAD_CORRUPT: ExitCode.error,
  /** `threads.create` of an id that exists (never overwritten). */
  THREAD_EXISTS: ExitCode.error,
  /** A pointer changed under a compare-and-swap more often than retrying allows. */
  THREAD_CONFLICT: ExitCode.error,
  /** `thread diff` of two threads that share no step (different StartNodes). */
  THREADS_UNRELATED: ExitCode.error,
  STEP_NOT_FOUND: ExitCode.error,
  /** `uwf thread receipt` of a thread none of whose steps ran in a git working tree. */
  RECEIPT_EMPTY: ExitCode.error,
  /** `uwf thread verify --receipt` of a file that is not a uwf receipt. */
  RECEIPT_INVALID: ExitCode.invalid,
  /** git failed where uwf needs its answer (`thread verify` looking recorded objects up). */
  GIT_FAILED: ExitCode.error,
  /**
   * `uwf thread race promote` of a thread that is no fork of a race, a fork that stored no step,
   * or a race whose thread moved on since; nothing was written.
   */
  RACE_NOT_PROMOTABLE: ExitCode.error,
  /** `uwf log show <day>` of a day without a log file. */
  LOG_NOT_FOUND: ExitCode.error,
  HASH_INVALID: ExitCode.usage,
  /** A hash or thread id prefix that matches more than one. */
  ID_AMBIGUOUS: ExitCode.usage,
  CAS_NOT_FOUND: ExitCode.error,
  CAS_CORRUPT: ExitCode.error,
  CONFIG_INVALID: ExitCode.error,
  /** `uwf config get` of a key that has no value (like `git config`, exit 1). */
  CONFIG_KEY_NOT_SET: ExitCode.error,
  /** A registry entry cannot be read. */
  REGISTRY_CORRUPT: ExitCode.error,
  /** A registry entry kept changing under a compare-and-swap (another process adds). */
  REGISTRY_BUSY: ExitCode.error,
  /** The lease an exec held was taken over (it looked dead) or removed. */
  LEASE_LOST: ExitCode.error,
  /** gc deleted nothing: a root or a reachable node cannot be read. */
  GC_REFUSED: ExitCode.error,
  /** The store cannot be reached or opened (a PostgreSQL server down, a bad URL). */
  STORE_UNAVAILABLE: ExitCode.error,
  /** The store is PostgreSQL and `@united-workforce/store-postgres` is not installed. */
  STORE_BACKEND_MISSING: ExitCode.error,
  /** Copying a store: the target holds a different thread or workflow under the same name. */
  STORE_CONFLICT: ExitCode.error,
  /** `uwf thread import`: the bundle is damaged, altered or does not verify; nothing was written. */
  BUNDLE_INVALID: ExitCode.error,
  /** `uwf thread import`: a line or the whole input is over its limit; nothing was written. */
  BUNDLE_TOO_LARGE: ExitCode.error,
  /** The store's schema is newer than this uwf, or a migration failed. */
  STORE_VERSION: ExitCode.error,
  AGENT_UNKNOWN: ExitCode.usage,
  MODERATOR: ExitCode.invalid,
  PATH_UNSAFE: ExitCode.error,
  /** A thread's git worktree cannot be made or removed: no git, not a repository, git failed. */
  WORKTREE_FAILED: ExitCode.error,
  /** `uwf thread trace --otlp`: the collector did not take the trace (down, refused, too slow). */
  OTLP_EXPORT_FAILED: ExitCode.error,
  IO: ExitCode.error,
  INTERRUPTED: ExitCode.interrupted,
  INTERNAL: ExitCode.error,
} as const satisfies Record<string, ExitCode>;

export type ErrorCode = keyof typeof ERROR_EXIT_CODES;

export function exitCodeFor(code: string): ExitCode {
  return (ERROR_EXIT_CODES as Record<string, ExitCode>)[code] ?? ExitCode.error;
}
