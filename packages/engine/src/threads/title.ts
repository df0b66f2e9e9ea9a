import { isPlainObject } from "@united-workforce/protocol";
import { sanitizeTerminalText } from "@united-workforce/util";

/** Long enough to tell threads apart in a list, short enough for one table column. */
export const TITLE_MAX_LENGTH = 72;

/**
 * A title made from free text: its first line that says something, markdown heading and list
 * marks dropped, whitespace collapsed, cut at a word to `TITLE_MAX_LENGTH` with "…". Empty when
 * the text has no such line.
 */
export function titleFromText(text: string): string {
  for (const raw of sanitizeTerminalText(text).split("\n")) {
    const line = raw
      .replace(INVISIBLE, " ")
      .replace(/^\s*(?:#{1,6}\s+|[-*+]\s+|>\s*)/, "")
      .replace(/\s+/g, " ")
      .trim();
    if (line !== "") return cutTitle(line);
  }
  return "";
}

/**
 * A fan-out child's title: its item, said briefly. A string item is its own text; a mapping
 * is named by its first naming field, else written as compact JSON; a sub-workflow's child
 * (no item) by its task.
 */
export function titleFromItem(item: unknown, prompt: string, index: number): string {
  if (item === null || item === undefined) return titleFromText(prompt) || `item ${index}`;
  if (typeof item === "string") return titleFromText(item) || `item ${index}`;
  if (isPlainObject(item)) {
    for (const key of NAMING_FIELDS) {
      const value = item[key];
      if (typeof value === "string" && titleFromText(value) !== "") return titleFromText(value);
    }
  }
  return titleFromText(JSON.stringify(item) ?? "") || `item ${index}`;
}

// Controls, formatting characters (zero-width, bidirectional, BOM) and what replaced a bad one.
const INVISIBLE = /[\p{Cc}\p{Cf}\uFFFD]/gu;

const NAMING_FIELDS = ["title", "name", "path", "file", "id", "task", "prompt"] as const;

/** `text` cut to `TITLE_MAX_LENGTH` characters, at a word boundary when one is near. */
function cutTitle(text: string): string {
  const chars = [...text];
  if (chars.length <= TITLE_MAX_LENGTH) return text;
  const cut = chars.slice(0, TITLE_MAX_LENGTH - 1).join("");
  const space = cut.lastIndexOf(" ");
  const kept = space >= TITLE_MAX_LENGTH / 2 ? cut.slice(0, space) : cut;
  return `${kept.trimEnd()}…`;
}
