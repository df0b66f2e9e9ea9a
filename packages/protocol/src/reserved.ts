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

/** The shortest prefix of a hash or thread id a command accepts (git's minimum too). */
export const MIN_PREFIX_LENGTH = 4;
const BASE32 = /^[0-9A-HJKMNP-TV-Z]+$/;

/**
 * An id as a user typed it, spelled as the store spells ids: trimmed, upper case, and the
 * letters Crockford Base32 reads as digits (I and L as 1, O as 0) mapped, so `7msk` is `7MSK`.
 */
export function normalizeId(text: string): string {
  return text.trim().toUpperCase().replace(/[IL]/g, "1").replace(/O/g, "0");
}

/** A full hash or a prefix of one (≥ 4 characters), in any case. */
export function isHashPrefix(text: string): boolean {
  const id = normalizeId(text);
  return id.length >= MIN_PREFIX_LENGTH && id.length <= 13 && BASE32.test(id);
}

/** A full thread id or a prefix of one (≥ 4 characters), in any case. */
export function isThreadIdPrefix(text: string): boolean {
  const id = normalizeId(text);
  return id.length >= MIN_PREFIX_LENGTH && id.length <= 26 && BASE32.test(id) && id[0]! <= "7";
}
