/** Graph key of the entry edges; never a role. */
export const START = "$START";
/** Target that completes the thread. */
export const END = "$END";
/** Target (and status any agent may emit) that waits for a human. */
export const SUSPEND = "$SUSPEND";
/** The field of every role output that routing reads. */
export const STATUS_FIELD = "$status";
/** Statuses `$START` must define, exactly. */
export const START_STATUSES = ["new", "resume"] as const;
export type StartStatus = (typeof START_STATUSES)[number];

export const RESERVED_NAMES: readonly string[] = [START, END, SUSPEND];

/** A CAS hash: 13 upper-case Crockford Base32 characters. */
export const HASH_PATTERN = /^[0-9A-HJKMNP-TV-Z]{13}$/;
/** A ULID thread id: 26 Crockford Base32 characters, first one at most 7. */
export const THREAD_ID_PATTERN = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
/** Workflow and role names: safe as file names and readable in a graph. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function isHash(value: unknown): value is string {
  return typeof value === "string" && HASH_PATTERN.test(value);
}

export function isThreadId(value: unknown): value is string {
  return typeof value === "string" && THREAD_ID_PATTERN.test(value);
}
