import { readFileSync } from "node:fs";
import { join } from "node:path";
import { hashBytes, makePrivateDir, writeFileAtomic } from "@united-workforce/util";

// A scenario's parsed value, kept between steps (issue 11). Every uwf-mock step reads its
// scenario, and parsing YAML meant loading and running the yaml library cold in each of them
// (≈ 2 ms of CPU for a one-line scenario). `<home>/cache/mock-scenarios/<hash of the path>.json`
// holds the file's path, its whole text and its value; an entry is used only when both are the
// same to the character, so an edited scenario is read again at once and no hash collision can
// stand in for another file. Only a scenario that parsed and passed every check is kept, and
// only when JSON gives its value back exactly. A missing, damaged or foreign entry is ignored;
// one that cannot be written costs time only.

const FORMAT = 1;
/** Entries over this size are not written: a cache should not double a huge file on disk. */
const MAX_ENTRY_CHARS = 1024 * 1024;
const MAX_DEPTH = 64;

interface Entry {
  format: typeof FORMAT;
  path: string;
  source: string;
  value: unknown;
}

function entryPath(home: string, path: string): string {
  return join(home, "cache", "mock-scenarios", `${hashBytes(path)}.json`);
}

/** The cached value of the scenario at `path` whose text is `source`, or undefined. */
export function readCachedScenario(home: string, path: string, source: string): unknown {
  let entry: Entry;
  try {
    entry = JSON.parse(readFileSync(entryPath(home, path), "utf8")) as Entry;
  } catch {
    return undefined;
  }
  if (
    entry === null ||
    typeof entry !== "object" ||
    entry.format !== FORMAT ||
    entry.path !== path ||
    entry.source !== source
  ) {
    return undefined;
  }
  return entry.value;
}

/** Keep `value`, parsed from `source` (the text of `path`), when JSON carries it exactly. */
export function writeCachedScenario(
  home: string,
  path: string,
  source: string,
  value: unknown,
): void {
  if (!isPlainJson(value, 0, [])) return;
  const text = JSON.stringify({ format: FORMAT, path, source, value } satisfies Entry);
  if (text.length > MAX_ENTRY_CHARS) return;
  try {
    makePrivateDir(join(home, "cache", "mock-scenarios"));
    writeFileAtomic(entryPath(home, path), text);
  } catch {
    // A read-only or full disk: the next step parses again.
  }
}

/**
 * Strings, finite numbers (not -0), booleans, null, arrays and plain objects: what JSON gives
 * back unchanged. (YAML's `.nan`, `.inf` and `-0` do not survive JSON; an alias that contains
 * itself has no end; a "__proto__" key is data to yaml and JSON.parse, not to every reader.)
 */
function isPlainJson(value: unknown, depth: number, ancestors: object[]): boolean {
  if (depth > MAX_DEPTH) return false;
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value !== "object" || ancestors.includes(value)) return false;
  const inside = [...ancestors, value];
  if (Array.isArray(value)) return value.every((item) => isPlainJson(item, depth + 1, inside));
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  if (Object.hasOwn(value, "__proto__")) return false;
  return Object.values(value).every((item) => isPlainJson(item, depth + 1, inside));
}
