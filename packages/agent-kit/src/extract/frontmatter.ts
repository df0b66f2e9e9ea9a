import { isPlainObject } from "@united-workforce/protocol";
import { parse as parseYaml } from "yaml";
import { parseFlatYaml } from "../prompt/flat-yaml.js";

export interface FrontmatterResult {
  /** The parsed YAML mapping, or null when there is none or it did not parse. */
  data: Record<string, unknown> | null;
  /** The markdown after the frontmatter, exactly as written (line endings normalised to LF). */
  body: string;
  /** Why `data` is null, when a block was found but could not be used. */
  error: string | null;
  /** Whether a frontmatter block was found at all. */
  found: boolean;
}

const FENCE_OPEN = /^(`{3,}|~{3,})\s*(ya?ml)?\s*$/i;

/**
 * Parse markdown that starts with YAML frontmatter. Tolerates what agents actually print: a
 * BOM, leading blank lines, CRLF line endings, and the block wrapped in a ```yaml fence (with or
 * without the `---` lines inside it).
 */
export function parseFrontmatter(raw: string): FrontmatterResult {
  const text = raw.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const lines = text.split("\n");
  let i = 0;
  while (i < lines.length && lines[i]!.trim() === "") i++;
  if (i >= lines.length) return { data: null, body: text, error: null, found: false };

  const first = lines[i]!.trim();
  const fence = FENCE_OPEN.exec(first);
  let yamlLines: string[] | null = null;
  let rest = i;
  if (first === "---") {
    const end = findLine(lines, i + 1, (line) => line.trim() === "---" || line.trim() === "...");
    if (end === -1)
      return notFound(text, "frontmatter starts with --- but has no closing --- line");
    yamlLines = lines.slice(i + 1, end);
    rest = end + 1;
  } else if (fence) {
    const marker = fence[1]!;
    const close = findLine(lines, i + 1, (line) => line.trim() === marker);
    if (close === -1) return notFound(text, "frontmatter fence is never closed");
    let inner = lines.slice(i + 1, close);
    // A fence around a full `---` block: drop the delimiters.
    const firstInner = inner.findIndex((line) => line.trim() !== "");
    if (firstInner !== -1 && inner[firstInner]!.trim() === "---") {
      const closeInner = findLine(inner, firstInner + 1, (line) => line.trim() === "---");
      inner = inner.slice(firstInner + 1, closeInner === -1 ? inner.length : closeInner);
    }
    yamlLines = inner;
    rest = close + 1;
  } else {
    return { data: null, body: text, error: null, found: false };
  }

  const body = lines.slice(rest).join("\n").replace(/^\n+/, "");
  let data: unknown;
  try {
    const yamlText = yamlLines.join("\n");
    // A flat block of plain words and numbers is read without the yaml library (same value).
    data = parseFlatYaml(yamlText) ?? parseYaml(yamlText, { maxAliasCount: 100 });
  } catch (error) {
    return {
      data: null,
      body,
      error: `frontmatter is not valid YAML: ${firstLine(error)}`,
      found: true,
    };
  }
  if (!isPlainObject(data)) {
    return { data: null, body, error: "frontmatter is not a YAML mapping", found: true };
  }
  return { data: data as Record<string, unknown>, body, error: null, found: true };
}

function findLine(lines: string[], from: number, test: (line: string) => boolean): number {
  for (let j = from; j < lines.length; j++) if (test(lines[j]!)) return j;
  return -1;
}

function notFound(text: string, error: string): FrontmatterResult {
  return { data: null, body: text, error, found: false };
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!;
}
