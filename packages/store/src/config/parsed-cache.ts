import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { makePrivateDir, writeFileAtomic } from "@united-workforce/util";

// config.yaml's parsed value, kept between processes (issue 11). Every store-opening process
// reads config.yaml, most of them twice, and parsing it meant loading and running the yaml
// library cold: `uwf cas get` took ≈ 5 ms of CPU more with a config.yaml than without one.
// `<home>/cache/config.json` holds the file's text and its value; it is used only when the text
// is the same to the character, so an edit is seen at once. The value may hold API keys, so the
// entry is written like config.yaml itself (mode 0600, in the private home), and removed when
// config.yaml is gone. A file that does not parse to a plain mapping is never cached (its
// errors still come from the parser); a missing, damaged or foreign entry is ignored.

const FORMAT = 1;

interface Entry {
  format: typeof FORMAT;
  source: string;
  value: Record<string, unknown>;
}

/** Where the parsed config of `home` is kept. */
export function parsedConfigPath(home: string): string {
  return join(home, "cache", "config.json");
}

/** The cached value of config.yaml whose text is `source`, or undefined. */
export function readParsedConfig(
  home: string,
  source: string,
): Record<string, unknown> | undefined {
  let entry: Entry;
  try {
    entry = JSON.parse(readFileSync(parsedConfigPath(home), "utf8")) as Entry;
  } catch {
    return undefined;
  }
  if (
    entry === null ||
    typeof entry !== "object" ||
    entry.format !== FORMAT ||
    entry.source !== source ||
    !isMapping(entry.value)
  ) {
    return undefined;
  }
  return entry.value;
}

/** Keep `value`, parsed from `source`, when JSON carries it exactly; failures cost time only. */
export function writeParsedConfig(
  home: string,
  source: string,
  value: Record<string, unknown>,
): void {
  if (!isPlainJson(value, 0)) return;
  try {
    makePrivateDir(join(home, "cache"));
    writeFileAtomic(
      parsedConfigPath(home),
      JSON.stringify({ format: FORMAT, source, value } satisfies Entry),
      { mode: 0o600 },
    );
  } catch {
    // A read-only or full disk: the next process parses again.
  }
}

/** config.yaml is gone: so is its parsed copy (which may hold keys). */
export function forgetParsedConfig(home: string): void {
  const path = parsedConfigPath(home);
  // existsSync first: one system call and no error object in the common case, no entry.
  if (!existsSync(path)) return;
  try {
    rmSync(path, { force: true });
  } catch {
    // Left in place it is never used: no config.yaml has its text.
  }
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Strings, finite numbers (not -0), booleans, null, arrays and plain objects, no deeper than a
 * config needs: what JSON gives back unchanged. (YAML's `.nan`, `.inf` and `-0` do not survive
 * JSON; an alias that contains itself has no end.)
 */
function isPlainJson(value: unknown, depth: number): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value !== "object") return false;
  if (Array.isArray(value)) return value.every((item) => isPlainJson(item, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  // A "__proto__" key is data to yaml and to JSON.parse alike, but not to every reader.
  if (Object.hasOwn(value, "__proto__")) return false;
  return Object.values(value).every((item) => isPlainJson(item, depth + 1));
}
