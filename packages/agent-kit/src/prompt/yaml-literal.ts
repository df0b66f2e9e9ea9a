import { stringify as stringifyYaml } from "yaml";

// A word YAML 1.2 (core schema) reads as a string when written plain: it starts with a letter,
// `_` or `$` (so it is no number) and is none of the null and boolean words below.
const PLAIN_WORD = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;
const NOT_STRINGS = new Set([
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

/**
 * A value as it must appear in YAML: `ready`, `"123"`, `true`. Field names and enum values are
 * mostly plain words and small integers, answered here: the yaml library's stringifier costs
 * ~2 ms the first time it runs in a process, and every adapter step builds this text once.
 * Anything else goes through it; a test pins both paths to its output.
 */
export function yamlLiteral(value: unknown): string {
  if (typeof value === "string" && PLAIN_WORD.test(value) && !NOT_STRINGS.has(value)) return value;
  if (typeof value === "boolean" || value === null) return String(value);
  if (typeof value === "number" && Number.isSafeInteger(value) && !Object.is(value, -0)) {
    return String(value);
  }
  return stringifyYaml(value).trimEnd();
}
