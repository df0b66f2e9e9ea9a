import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { makePrivateDir } from "../home.js";
import { writeFileAtomic } from "./atomic-write.js";

// A file's parsed value kept between processes (issue 11): workflow files, config.yaml and
// uwf-mock's scenarios are YAML, and parsing YAML meant loading and running the yaml library
// cold in every process. An entry holds the file's whole text (`source`) beside its value, and
// is used only when the text is the same to the character, so an edited file is read again at
// once and no hash collision can stand in for another file. Entries are private (0600, in a
// private folder): config.yaml's value holds API keys. A missing, damaged or foreign entry is
// ignored; one that cannot be written costs time only.

const FORMAT = 1;
/** Entries over this size are not written: a cache should not double a huge file on disk. */
const MAX_ENTRY_CHARS = 1024 * 1024;
const MAX_DEPTH = 64;

/** An entry: the file's text, its value, and what its owner records beside them. */
export interface ParseCacheEntry {
  source: string;
  value: unknown;
  [field: string]: unknown;
}

/** The entry in `file` made from the text `source`, or undefined when there is none usable. */
export function readParseCache(file: string, source: string): ParseCacheEntry | undefined {
  let entry: unknown;
  try {
    entry = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
  if (entry === null || typeof entry !== "object") return undefined;
  const fields = entry as Record<string, unknown>;
  return fields.format === FORMAT && fields.source === source
    ? (fields as ParseCacheEntry)
    : undefined;
}

/** Keep `entry` in `file` when JSON gives every field of it back exactly and it is not huge. */
export function writeParseCache(file: string, entry: ParseCacheEntry): void {
  const stored = { format: FORMAT, ...entry };
  if (!isPlainJson(stored, 0, [])) return;
  const text = JSON.stringify(stored);
  if (text.length > MAX_ENTRY_CHARS) return;
  try {
    makePrivateDir(dirname(file));
    writeFileAtomic(file, text);
  } catch {
    // A read-only or full disk: the next process parses again.
  }
}

/**
 * Strings, finite numbers (not -0), booleans, null, arrays and plain objects: what JSON gives
 * back unchanged. (YAML's `.nan`, `.inf` and `-0` do not survive JSON; an alias that contains
 * itself has no end.) A "__proto__" key is an own data property to yaml and to JSON.parse
 * alike, so a cached value holds it exactly as the parsed one did.
 */
function isPlainJson(value: unknown, depth: number, ancestors: object[]): boolean {
  if (depth > MAX_DEPTH) return false;
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value !== "object" || ancestors.includes(value)) return false;
  const inside = [...ancestors, value];
  if (Array.isArray(value)) return value.every((item) => isPlainJson(item, depth + 1, inside));
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value).every((item) => isPlainJson(item, depth + 1, inside));
}
