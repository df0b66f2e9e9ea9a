import { stringify as stringifyYaml } from "yaml";
import type { MockAnswer } from "./scenario.js";

/** An output object becomes `---\n<yaml>---\n<body>`; a string is sent exactly as written. */
export function renderAnswer(answer: MockAnswer, body = ""): string {
  if (typeof answer === "string") return answer;
  return `---\n${flatYaml(answer) ?? stringifyYaml(answer)}---\n${body}`;
}

// A word YAML 1.2 (core schema) reads as a string when written plain: it starts with a letter,
// `_` or `$` (so it is no number) and is none of the null and boolean words below.
const PLAIN_WORD = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;
const NOT_STRINGS = new Set(["null", "Null", "NULL", "true", "True", "TRUE"]);
for (const word of ["false", "False", "FALSE"]) NOT_STRINGS.add(word);

const isPlainWord = (value: unknown): value is string =>
  typeof value === "string" && PLAIN_WORD.test(value) && !NOT_STRINGS.has(value);

/**
 * The yaml library's text for a flat mapping of plain words, booleans, null and safe integers
 * (`$status: done`, most scenario outputs), or null for anything else. The stringifier's first
 * run costs a process ≈ 1–2 ms, and uwf-mock renders one answer per step; a test pins this to
 * the library's output.
 */
export function flatYaml(answer: Record<string, unknown>): string | null {
  const keys = Object.keys(answer);
  if (keys.length === 0) return null;
  let text = "";
  for (const key of keys) {
    const value = answer[key];
    if (!isPlainWord(key)) return null;
    let literal: string;
    if (isPlainWord(value)) literal = value;
    else if (typeof value === "boolean" || value === null) literal = String(value);
    else if (typeof value === "number" && Number.isSafeInteger(value) && !Object.is(value, -0)) {
      literal = String(value);
    } else return null;
    const line = `${key}: ${literal}`;
    // The library moves a value that would pass its line width (80) to the next line.
    if (line.length > 60) return null;
    text += `${line}\n`;
  }
  return text;
}
