import {
  HASH_PATTERN,
  hiddenCharacter,
  hiddenCharacterNote,
  isHashPrefix,
  isThreadIdPrefix,
  MIN_PREFIX_LENGTH,
  normalizeId,
  quoteVisibly,
} from "@united-workforce/protocol";
import { isoTime, UwfError } from "@united-workforce/util";
import type { ArgumentSpec, DurationUnit, OptionSpec } from "./command.js";

/**
 * Parsing and describing typed command-line values. Every option and positional argument of
 * the command table goes through here before its handler runs, so a bad value is a usage
 * error (exit 2) that names the flag, and `--help` and docs/cli.md say what each one takes.
 */

const UNIT_MS: Record<DurationUnit, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/;
const BARE_NUMBER = /^\d+(?:\.\d+)?$/;
const INTEGER = /^[+-]?\d+$/;
/** A calendar day, a time with minutes, seconds and fractions, and an optional zone. */
const ISO_TIME =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The flag a message names: the long one (`--count`), else the short one. */
export function flagName(spec: Pick<OptionSpec, "flags">): string {
  return /--[A-Za-z0-9-]+/.exec(spec.flags)?.[0] ?? spec.flags.split(/[ ,]/)[0]!;
}

/**
 * The key commander stores the value under: `--keep-recent` → `keepRecent`; a negation
 * `--no-worktree` shares `worktree` with `--worktree`.
 */
export function optionKey(spec: Pick<OptionSpec, "flags">): string {
  return flagName(spec)
    .replace(/^-+(no-)?/, "")
    .replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The label of a positional argument in messages and usage lines: `<hash>`, `[date]`. */
export function argumentLabel(spec: ArgumentSpec): string {
  const label = `${spec.name}${spec.variadic ? "..." : ""}`;
  return spec.required === false ? `[${label}]` : `<${label}>`;
}

/**
 * A command's options as its handler gets them, by the key each is stored under: `raw` holds
 * what was given (as commander collects it, or as an MCP tool call maps its input).
 */
export function parseOptionValues(
  options: readonly { spec: OptionSpec; key: string }[],
  raw: Record<string, unknown>,
  now: number,
): Record<string, unknown> {
  const parsed: Record<string, unknown> = {};
  for (const { spec, key } of options) {
    // `--x` with `--no-x` share one key: true, false, or undefined when neither is given.
    const paired = options.filter((o) => o.key === key && o.spec.type === "boolean").length > 1;
    parsed[key] = paired
      ? raw[key] === undefined
        ? undefined
        : raw[key] === true
      : parseOptionValue(spec, raw[key], now);
  }
  return parsed;
}

/**
 * An option's value as the handler gets it: `raw` is what commander collected (a string,
 * `true` for a given boolean flag, or undefined), the default is used when it is missing.
 */
export function parseOptionValue(spec: OptionSpec, raw: unknown, now: number): unknown {
  if (spec.type === "boolean") return raw === true;
  if (spec.type === "string" && spec.repeatable) {
    const values = raw === undefined ? [] : Array.isArray(raw) ? raw.map(String) : [String(raw)];
    if (spec.required && values.length === 0) throw requiredError(spec);
    return values;
  }
  const text = raw === undefined ? ("default" in spec ? spec.default : undefined) : String(raw);
  if (text === undefined) {
    if (spec.type === "string" && spec.required) throw requiredError(spec);
    return undefined;
  }
  const flag = flagName(spec);
  switch (spec.type) {
    case "string":
      if (spec.required && text.trim() === "") throw requiredError(spec);
      return text;
    case "integer": {
      const n = INTEGER.test(text.trim()) ? Number(text.trim()) : Number.NaN;
      const inRange =
        Number.isSafeInteger(n) &&
        (spec.min === undefined || n >= spec.min) &&
        (spec.max === undefined || n <= spec.max);
      if (!inRange)
        throw badValue(spec, text, `e.g. ${flag} ${spec.default ?? Math.max(spec.min ?? 1, 1)}`);
      return n;
    }
    case "duration": {
      const ms = durationMs(text, spec.bareUnit);
      if (ms === null) throw badValue(spec, text, `e.g. ${flag} ${spec.default ?? "10m"}`);
      return ms;
    }
    case "time": {
      const time = timeMs(text, now);
      if (time === null)
        throw badValue(spec, text, `e.g. ${flag} 7d or ${flag} 2026-01-31T00:00:00Z`);
      return time;
    }
    case "enum":
      if (!spec.choices.includes(text))
        throw badValue(spec, text, `e.g. ${flag} ${spec.default ?? spec.choices[0]}`);
      return text;
    case "hash":
      if (spec.keywords?.includes(text)) return text;
      if (isHashPrefix(text)) return normalizeId(text);
      throw badValue(spec, text, hashHint(text));
    case "thread":
      if (isThreadIdPrefix(text)) return normalizeId(text);
      throw badValue(spec, text, threadHint(text));
  }
}

/** Check one positional value (or each of a variadic one's). */
export function checkArgument(spec: ArgumentSpec, value: string | undefined): void {
  if (value === undefined || spec.keywords?.includes(value)) return;
  const label = argumentLabel(spec);
  const refuse = (hint: string) =>
    new UwfError(spec.type === "hash" ? "HASH_INVALID" : "USAGE", badMessage(label, value, spec), {
      hint,
    });
  switch (spec.type ?? "string") {
    case "hash":
      if (!isHashPrefix(value)) throw refuse(hashHint(value));
      return;
    case "thread":
      if (!isThreadIdPrefix(value)) throw refuse(threadHint(value));
      return;
    case "day":
      if (!isDay(value)) throw refuse("Pass a UTC day like 2026-01-31; `uwf log list` lists them.");
      return;
    default:
      return;
  }
}

/** What a value must look like, for messages, `--help` and docs: "a whole number ≥ 1". */
export function expectation(spec: OptionSpec | ArgumentSpec): string {
  switch (spec.type ?? "string") {
    case "integer": {
      const { min, max } = spec as { min?: number; max?: number };
      if (min !== undefined && max !== undefined) return `a whole number from ${min} to ${max}`;
      if (min !== undefined) return `a whole number ≥ ${min}`;
      if (max !== undefined) return `a whole number ≤ ${max}`;
      return "a whole number";
    }
    case "duration": {
      const bare = (spec as { bareUnit?: DurationUnit }).bareUnit;
      return bare
        ? `a number of ${UNIT_NAMES[bare]} or a duration like 30s, 5m, 1h`
        : "a duration like 500ms, 30s, 5m, 1h, 7d, or 0";
    }
    case "time":
      return "an ISO time or an age like 7d, 24h, 30m";
    case "enum":
      return `one of ${(spec as { choices: readonly string[] }).choices.join(", ")}`;
    case "hash": {
      const keywords = (spec as { keywords?: readonly string[] }).keywords ?? [];
      const rule = `a CAS hash (13 Crockford Base32 characters: 0-9 and A-Z without I, L, O, U; or a unique prefix of ${MIN_PREFIX_LENGTH} or more)`;
      return keywords.length ? `${rule} or one of ${keywords.join(", ")}` : rule;
    }
    case "thread":
      return `a thread id (the 26-character ULID \`uwf thread start\` prints) or a unique prefix of ${MIN_PREFIX_LENGTH} or more`;
    case "day":
      return "a UTC day like 2026-01-31";
    default:
      return "text";
  }
}

/** The note `--help` and docs/cli.md add to an option's description: type, choices, default. */
export function valueNote(spec: OptionSpec): string {
  const notes: string[] = [];
  if (spec.type === "hash") {
    const keywords = spec.keywords?.length ? ` or one of ${spec.keywords.join(", ")}` : "";
    notes.push(`CAS hash or unique prefix${keywords}`);
  } else if (spec.type === "thread") notes.push("thread id or unique prefix");
  else if (spec.type !== "string" && spec.type !== "boolean")
    notes.push(expectation(spec).replace(/^an? /, ""));
  if (spec.type === "string" && spec.required) notes.push("required");
  if (spec.type === "string" && spec.repeatable) notes.push("repeatable");
  if ("default" in spec && spec.default !== undefined) notes.push(`default: ${spec.default}`);
  return notes.join("; ");
}

/** `30s` → 30000; a bare number only with a `bareUnit` (or `0`); null when it is not one. */
export function durationMs(value: string, bareUnit?: DurationUnit): number | null {
  const text = value.trim();
  const match = DURATION.exec(text);
  if (match) return Math.round(Number(match[1]) * UNIT_MS[match[2] as DurationUnit]);
  if (!BARE_NUMBER.test(text)) return null;
  // A bare number means nothing without a unit, except zero, which is zero in any unit.
  const unit = bareUnit ?? (Number(text) === 0 ? "ms" : undefined);
  return unit ? Math.round(Number(text) * UNIT_MS[unit]) : null;
}

/** An ISO time, or an age (`7d`) meaning that long before `now`; null when it is neither. */
export function timeMs(value: string, now: number): number | null {
  const text = value.trim();
  const age = durationMs(text);
  if (age !== null) return now - age;
  if (!ISO_TIME.test(text)) return null;
  const time = Date.parse(text);
  return Number.isNaN(time) ? null : time;
}

function isDay(value: string): boolean {
  if (!DAY.test(value)) return false;
  const time = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(time) && isoTime(time).startsWith(value);
}

const UNIT_NAMES: Record<DurationUnit, string> = {
  ms: "milliseconds",
  s: "seconds",
  m: "minutes",
  h: "hours",
  d: "days",
  w: "weeks",
};

function badMessage(name: string, value: string, spec: OptionSpec | ArgumentSpec): string {
  return `${name} must be ${expectation(spec)}, got ${quoteVisibly(value)}`;
}

function badValue(spec: OptionSpec, value: string, fallbackHint: string): UwfError {
  return new UwfError(
    spec.type === "hash" ? "HASH_INVALID" : "USAGE",
    badMessage(flagName(spec), value, spec),
    { hint: spec.hint ?? fallbackHint },
  );
}

function requiredError(spec: OptionSpec): UwfError {
  return new UwfError("USAGE", `${flagName(spec)} is required and must not be empty`, {
    hint: spec.hint ?? `Pass ${flagName(spec)} <${spec.type === "string" ? "text" : "value"}>.`,
  });
}

function hashHint(value: string): string {
  if (hiddenCharacter(value)) return hiddenHint(value, "`uwf step list`");
  return normalizeId(value).length < MIN_PREFIX_LENGTH && /^[0-9a-z]+$/i.test(value.trim())
    ? `Give at least ${MIN_PREFIX_LENGTH} characters of the hash.`
    : "Copy the hash from the command that printed it (`uwf workflow list`, `uwf step list`, `uwf cas put-text`, …).";
}

function threadHint(value: string): string {
  if (hiddenCharacter(value)) return hiddenHint(value, "`uwf thread list`");
  const id = normalizeId(value);
  if (id.length < MIN_PREFIX_LENGTH && /^[0-9a-z]+$/i.test(value.trim()))
    return `Give at least ${MIN_PREFIX_LENGTH} characters of the thread id.`;
  // A step hash is the other id users copy from uwf's output; it is 13 characters long.
  if (HASH_PATTERN.test(id))
    return "That looks like a step or node hash, not a thread id: `uwf step show <hash>` shows a step, `uwf thread list` the thread ids.";
  if (/^[8-9A-Z]/.test(id) && id.length <= 26)
    return "A thread id starts with a digit from 0 to 7 (its time part); `uwf thread list` shows the thread ids.";
  return "`uwf thread list` shows the thread ids.";
}

/** An id pasted with a character that does not show: say which, and where. */
function hiddenHint(value: string, lister: string): string {
  return `It holds ${hiddenCharacterNote(value)}: type the id again, or copy it from ${lister}.`;
}
