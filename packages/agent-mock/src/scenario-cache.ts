import { join } from "node:path";
import { hashBytes, readParseCache, writeParseCache } from "@united-workforce/util";

// A scenario's parsed value, kept between steps (issue 11). Every uwf-mock step reads its
// scenario, and parsing YAML meant loading and running the yaml library cold in each of them
// (≈ 2 ms of CPU for a one-line scenario). `<home>/cache/mock-scenarios/<hash of the path>.json`
// is util's parse-cache entry (used only for the same text) with the file's path beside it.
// Only a scenario that parsed and passed every check is kept.

function entryPath(home: string, path: string): string {
  return join(home, "cache", "mock-scenarios", `${hashBytes(path)}.json`);
}

/** The cached value of the scenario at `path` whose text is `source`, or undefined. */
export function readCachedScenario(home: string, path: string, source: string): unknown {
  const entry = readParseCache(entryPath(home, path), source);
  return entry?.path === path ? entry.value : undefined;
}

/** Keep `value`, parsed from `source` (the text of `path`), when JSON carries it exactly. */
export function writeCachedScenario(
  home: string,
  path: string,
  source: string,
  value: unknown,
): void {
  writeParseCache(entryPath(home, path), { path, source, value });
}
