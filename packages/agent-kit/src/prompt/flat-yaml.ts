// A flat mapping of plain words, small integers, booleans and nulls (`$status: done`,
// `attempts: 2`) is most of what a step's frontmatter holds, and handling it without the yaml
// library keeps a step from loading and running that library cold (≈ 3 ms of CPU in a
// uwf-mock step, issue 11). Both functions answer only what they are sure of, exactly as the
// yaml library would (tests compare them with it); anything else is left to the library.

// A word YAML 1.2 (core schema) reads as a string when written plain: it starts with a letter,
// `_` or `$` (so it is no number) and is none of the null and boolean words below.
export const PLAIN_WORD = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;
export const NOT_STRINGS: ReadonlySet<string> = new Set([
  "null",
  "Null",
  "NULL",
  "true",
  "True",
  "TRUE",
  "false",
  "False",
  "FALSE",
]);

/** The longest `key: value` line written here: well inside the yaml library's line width. */
const MAX_LINE = 60;
const LINE = /^([A-Za-z_$][A-Za-z0-9_$-]*): (\S+)$/;
const INTEGER = /^-?(?:0|[1-9][0-9]*)$/;
const LITERALS: Readonly<Record<string, boolean | null>> = {
  true: true,
  True: true,
  TRUE: true,
  false: false,
  False: false,
  FALSE: false,
  null: null,
  Null: null,
  NULL: null,
};

/** A scalar written plain, or undefined when it is not one of the few this file reads. */
function flatScalar(text: string): string | number | boolean | null | undefined {
  if (Object.hasOwn(LITERALS, text)) return LITERALS[text];
  if (PLAIN_WORD.test(text)) return text;
  if (INTEGER.test(text) && text !== "-0") {
    const value = Number(text);
    return Number.isSafeInteger(value) ? value : undefined;
  }
  return undefined;
}

/** A plain word that names a key the same way in YAML and in a JavaScript object. */
function isFlatKey(key: string): boolean {
  return PLAIN_WORD.test(key) && !NOT_STRINGS.has(key) && key !== "__proto__";
}

/**
 * The mapping `text` holds when every line is `key: value` with a plain-word key (each once) and
 * a plain word, safe integer, boolean or null value; undefined for anything else (comments,
 * quotes, nesting, lists, blank lines), which the caller gives to the yaml library.
 */
export function parseFlatYaml(text: string): Record<string, unknown> | undefined {
  const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  const data: Record<string, unknown> = {};
  for (const line of lines) {
    const match = LINE.exec(line);
    if (match === null) return undefined;
    const [, key, raw] = match as unknown as [string, string, string];
    if (!isFlatKey(key) || Object.hasOwn(data, key)) return undefined;
    const value = flatScalar(raw);
    if (value === undefined) return undefined;
    data[key] = value;
  }
  return lines.length > 0 ? data : undefined;
}

/**
 * `value` as the yaml library writes it (`key: value` lines, each ending in a newline) when it
 * is a non-empty flat mapping of short lines that `parseFlatYaml` reads back; undefined otherwise.
 */
export function stringifyFlatYaml(value: Record<string, unknown>): string | undefined {
  if (Object.getPrototypeOf(value) !== Object.prototype) return undefined;
  let text = "";
  for (const [key, item] of Object.entries(value)) {
    if (!isFlatKey(key)) return undefined;
    let literal: string;
    if (typeof item === "string" && PLAIN_WORD.test(item) && !NOT_STRINGS.has(item)) literal = item;
    else if (typeof item === "boolean" || item === null) literal = String(item);
    else if (typeof item === "number" && Number.isSafeInteger(item) && !Object.is(item, -0))
      literal = String(item);
    else return undefined;
    // The library moves a value that does not fit its 80-column lines to a line of its own.
    if (key.length + 2 + literal.length > MAX_LINE) return undefined;
    text += `${key}: ${literal}\n`;
  }
  return text === "" ? undefined : text;
}
