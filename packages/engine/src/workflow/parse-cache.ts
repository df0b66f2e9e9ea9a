import { dirname, join } from "node:path";
import { hashBytes, readParseCache, writeParseCache } from "@united-workforce/util";

// Parsed workflow files, cached between processes (issue 11). Parsing a workflow's YAML is most
// of what `uwf workflow validate` costs: the yaml library runs cold in a young process, ≈ 12 ms
// for the 6.5 KB of examples/solve-issue.yaml. A file that parsed without a problem is kept as
// util's parse-cache entry (used only for the same text) under `<home>/cache/workflows/`, one
// per file path, with the places of its include directives. Files with a problem are never
// cached, so every message (with its line and column) still comes from the parser.

/**
 * The parse cache beside the validator cache (`<home>/cache/validators`): `<home>/cache/workflows`.
 * Callers that cache no validators (tests, libraries) cache no parses either.
 */
export function parsedWorkflowCacheDir(validatorCacheDir: string | undefined): string | undefined {
  return validatorCacheDir === undefined
    ? undefined
    : join(dirname(validatorCacheDir), "workflows");
}

/** A value with more nodes than this (aliases counted each time) is not cached. */
const MAX_NODES = 200_000;

/** A key on the way from the value's root to an include directive: a property or an index. */
type Step = string | number;

/** Where the value holds an include directive (null in `value`) and the path it names. */
type IncludePlaces = Array<{ at: Step[]; target: string }>;

/**
 * The cached value of the file at `path` whose text is `source`, with include directives
 * rebuilt by `makeInclude`, or undefined when there is no usable entry.
 */
export function readParsedWorkflow(
  dir: string,
  path: string,
  source: string,
  makeInclude: (target: string) => unknown,
): unknown {
  const entry = readParseCache(entryPath(dir, path), source);
  if (entry === undefined || !Array.isArray(entry.includes)) return undefined;
  let value = entry.value;
  for (const include of entry.includes as unknown[] as IncludePlaces) {
    if (
      include === null ||
      typeof include !== "object" ||
      typeof include.target !== "string" ||
      !Array.isArray(include.at)
    ) {
      return undefined;
    }
    const placed = place(value, include.at, makeInclude(include.target));
    if (placed === undefined) return undefined;
    value = placed;
  }
  return value;
}

/**
 * Keep the value parsed from `source` (the text of `path`) when it is plain data (the JSON
 * round trip must give it back exactly); `includeTarget` names an include directive's path.
 */
export function writeParsedWorkflow(
  dir: string,
  path: string,
  source: string,
  value: unknown,
  includeTarget: (value: unknown) => string | null,
): void {
  const includes: IncludePlaces = [];
  const budget = { nodes: MAX_NODES };
  const plain = toPlain(value, [], [], includes, includeTarget, budget);
  if (plain === UNSUPPORTED) return;
  writeParseCache(entryPath(dir, path), { source, value: plain, includes });
}

function entryPath(dir: string, path: string): string {
  return join(dir, `${hashBytes(path)}.json`);
}

const UNSUPPORTED = Symbol("unsupported");

/** A JSON-safe copy of `value` with include directives as null (recorded in `includes`). */
function toPlain(
  value: unknown,
  at: Step[],
  ancestors: object[],
  includes: IncludePlaces,
  includeTarget: (value: unknown) => string | null,
  budget: { nodes: number },
): unknown {
  if (--budget.nodes < 0) return UNSUPPORTED;
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    // NaN, ±Infinity and -0 (YAML's .nan, .inf, -0) do not survive JSON.
    return Number.isFinite(value) && !Object.is(value, -0) ? value : UNSUPPORTED;
  }
  if (typeof value !== "object") return UNSUPPORTED;
  const target = includeTarget(value);
  if (target !== null) {
    includes.push({ at: [...at], target });
    return null;
  }
  // A circular alias is reported by the expansion, which needs the real structure.
  if (ancestors.includes(value)) return UNSUPPORTED;
  const inside = [...ancestors, value];
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      const item = toPlain(value[i], [...at, i], inside, includes, includeTarget, budget);
      if (item === UNSUPPORTED) return UNSUPPORTED;
      out.push(item);
    }
    return out;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return UNSUPPORTED;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const plain = toPlain(item, [...at, key], inside, includes, includeTarget, budget);
    if (plain === UNSUPPORTED) return UNSUPPORTED;
    // defineProperty keeps a "__proto__" key as data, as JSON.parse will.
    Object.defineProperty(out, key, { value: plain, enumerable: true, writable: true });
  }
  return out;
}

/** `root` with `item` put where `at` leads (which must hold null); undefined if it cannot. */
function place(root: unknown, at: unknown[], item: unknown): unknown {
  if (at.length === 0) return root === null ? item : undefined;
  let container: unknown = root;
  for (let i = 0; i < at.length; i++) {
    const key = at[i];
    if (container === null || typeof container !== "object") return undefined;
    const holder = container as Record<string | number, unknown>;
    if (Array.isArray(container) ? typeof key !== "number" : typeof key !== "string") {
      return undefined;
    }
    if (!Object.hasOwn(holder, key as string | number)) return undefined;
    if (i === at.length - 1) {
      if (holder[key as string | number] !== null) return undefined;
      Object.defineProperty(holder, key as string | number, {
        value: item,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      return root;
    }
    container = holder[key as string | number];
  }
  return undefined;
}
