import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isPlainObject } from "@united-workforce/protocol";
import { readParseCache, writeParseCache } from "@united-workforce/util";

// config.yaml's parsed value, kept between processes (issue 11). Every store-opening process
// reads config.yaml, most of them twice, and parsing it meant loading and running the yaml
// library cold: `uwf cas get` took ≈ 5 ms of CPU more with a config.yaml than without one.
// `<home>/cache/config.json` is util's parse-cache entry (the file's text and its value, used
// only for the same text, written 0600 since the value may hold API keys), removed when
// config.yaml is gone. A file that does not parse to a plain mapping is never cached (its
// errors still come from the parser).

/** Where the parsed config of `home` is kept. */
export function parsedConfigPath(home: string): string {
  return join(home, "cache", "config.json");
}

/** The cached value of config.yaml whose text is `source`, or undefined. */
export function readParsedConfig(
  home: string,
  source: string,
): Record<string, unknown> | undefined {
  const value = readParseCache(parsedConfigPath(home), source)?.value;
  return isPlainObject(value) ? value : undefined;
}

/** Keep `value`, parsed from `source`, when JSON carries it exactly; failures cost time only. */
export function writeParsedConfig(
  home: string,
  source: string,
  value: Record<string, unknown>,
): void {
  writeParseCache(parsedConfigPath(home), { source, value });
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
