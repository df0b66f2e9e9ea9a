import { nearestWord } from "@united-workforce/util";

/**
 * Validation messages users and tests rely on, word for word (DESIGN §5). Every other message
 * is written where it is raised.
 */

export const UNDERSCORE_STATUS =
  'status key "_" is no longer valid: use explicit statuses (see uwf prompt workflow-authoring)';

export const START_STATUSES_REQUIRED = '$START must have edges with statuses "new" and "resume"';

export function unknownTargetRole(
  source: string,
  status: string,
  target: string,
  roles: Iterable<string> = [],
): string {
  return `edge ${source}→${status}: unknown target role "${target}"${didYouMean(target, roles)}`;
}

export function unreachableRole(role: string): string {
  return `role "${role}" is not reachable from $START`;
}

export function missingStatusKeys(role: string, statuses: readonly string[]): string {
  return `role "${role}" graph is missing status keys: ${statusList(statuses)}${yamlKeyHint(statuses)}`;
}

/** `missing`: the declared statuses the graph lacks, which an undeclared key may misspell. */
export function undeclaredStatusKeys(
  role: string,
  statuses: readonly string[],
  missing: readonly string[] = [],
): string {
  const near = statuses.flatMap((s) => {
    const declared = nearestWord(s, missing);
    return declared === undefined ? [] : [`"${s}" → "${declared}"`];
  });
  const hint = near.length === 0 ? "" : ` (did you mean ${near.join(", ")}?)`;
  return `role "${role}" graph has status keys its frontmatter does not declare in "$status": ${statusList(statuses)}${hint}`;
}

/** Plain words as they are; anything else (an empty key, a space) quoted, so it shows. */
function statusList(statuses: readonly string[]): string {
  return statuses.map((s) => (/^[\w.$-]+$/.test(s) ? s : JSON.stringify(s))).join(", ");
}

/**
 * The mapping key an unquoted word becomes under YAML 1.2's core schema: a null is "", a
 * boolean or a number its JavaScript spelling (`1.0` → "1", `0x10` → "16", `True` → "true").
 */
function unquotedKey(word: string): string {
  if (/^(?:null|Null|NULL|~)$/.test(word)) return "";
  if (/^(?:true|True|TRUE|false|False|FALSE)$/.test(word)) return word.toLowerCase();
  if (/^[-+]?\.(?:inf|Inf|INF)$/.test(word)) return word.startsWith("-") ? "-Infinity" : "Infinity";
  if (/^\.(?:nan|NaN|NAN)$/.test(word)) return "NaN";
  if (/^0x[\da-fA-F]+$/.test(word)) return String(Number.parseInt(word.slice(2), 16));
  if (/^0o[0-7]+$/.test(word)) return String(Number.parseInt(word.slice(2), 8));
  if (/^[-+]?(?:\.\d+|\d+(?:\.\d*)?)(?:[eE][-+]?\d+)?$/.test(word)) return String(Number(word));
  return word;
}

/**
 * A declared status that an unquoted graph key cannot spell (YAML reads `null:` as a null key
 * and `1.0:` as the number 1), so the key the author wrote never matches it.
 */
function yamlKeyHint(statuses: readonly string[]): string {
  const unspellable = statuses.filter((s) => unquotedKey(s) !== s);
  if (unspellable.length === 0) return "";
  const example = unspellable[0]!;
  return `; YAML reads an unquoted key ${unspellable.join(", ")} as a null, a boolean or a number, not as that word: quote it in the graph ("${example}": …)`;
}

export function templateVariableNotFound(
  field: "prompt" | "location",
  variable: string,
  source: string,
  status: string,
): string {
  return `${field} variable "${variable}" in graph[${source}][${status}] not found in role "${source}" frontmatter`;
}

export function nameMismatch(
  file: string,
  implied: string,
  declared: string,
  rename: { what: "file" | "folder"; to: string },
): string {
  return `workflow name mismatch: file "${file}" implies name "${implied}" but YAML declares name "${declared}". Either rename the ${rename.what} to "${rename.to}" or change the YAML \`name\` field to "${implied}"`;
}

export function cannotReachEnd(role: string): string {
  return `role "${role}" can never reach $END: every path from it loops or suspends`;
}

export function frontmatterNotCompilable(role: string, reason: string): string {
  return `role "${role}" frontmatter is not a valid JSON Schema: ${reason}`;
}

export function inputsNotCompilable(reason: string): string {
  return `"inputs" is not a valid JSON Schema: ${reason}`;
}

/** ` (did you mean "x"?)` when `word` looks like a misspelt candidate, else "". */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const near = nearestWord(word, candidates);
  return near === undefined ? "" : ` (did you mean "${near}"?)`;
}

/**
 * `<what> "<key>"`, then the key it most likely misspells or, when none is near, every key
 * allowed there.
 */
export function unknownKey(what: string, key: string, expected: readonly string[]): string {
  const near = nearestWord(key, expected);
  return near === undefined
    ? `${what} "${key}" (expected: ${expected.join(", ")})`
    : `${what} "${key}" (did you mean "${near}"?)`;
}
