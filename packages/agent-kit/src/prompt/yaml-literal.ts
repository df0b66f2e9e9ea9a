import { stringify as stringifyYaml } from "yaml";

import { NOT_STRINGS, PLAIN_WORD } from "./flat-yaml.js";

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
