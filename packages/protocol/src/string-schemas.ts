import { HASH_PATTERN, THREAD_ID_PATTERN } from "./reserved.js";

/**
 * The strings uwf writes everywhere, as schemas: a document, the thread pointer or an event
 * uses these rather than spelling a pattern again.
 */

/** A CAS hash: 13 upper-case Crockford Base32 characters. */
export const hashSchema = { type: "string", pattern: HASH_PATTERN.source } as const;

/** A ULID thread id. */
export const threadIdSchema = { type: "string", pattern: THREAD_ID_PATTERN.source } as const;

/**
 * A time as uwf writes it (`isoTime`): ISO 8601 in UTC, with a month, day and clock that exist,
 * so every one parses. Its groups capture nothing: that makes it a third faster to test.
 */
export const isoTimeSchema = {
  type: "string",
  pattern:
    "^\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])T(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?Z$",
} as const;

const PATTERN_NOUNS: ReadonlyMap<string, string> = new Map([
  [hashSchema.pattern, "a CAS hash"],
  [threadIdSchema.pattern, "a thread id"],
  [isoTimeSchema.pattern, "an ISO 8601 time (UTC)"],
]);

/** What a value of one of these patterns is called in a message, or null for another pattern. */
export function patternNoun(pattern: string): string | null {
  return PATTERN_NOUNS.get(pattern) ?? null;
}
