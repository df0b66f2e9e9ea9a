import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  openSync,
  readFileSync,
  realpathSync,
  type Stats,
  statSync,
} from "node:fs";
import { dirname, extname, isAbsolute, relative, resolve, sep } from "node:path";
import { UwfError } from "@united-workforce/util";
import type { ScalarTag } from "yaml";
import { workflowInvalidError } from "./invalid.js";
import { readParsedWorkflow, writeParsedWorkflow } from "./parse-cache.js";
import { decodeUtf8, MAX_NESTING_DEPTH, parseJsonSource, parseYamlSource } from "./parse-source.js";

/** A workflow file read from disk with every `!include` replaced by what it names. */
export interface LoadedWorkflowFile {
  /** The parsed top-level mapping, not yet validated. */
  definition: Record<string, unknown>;
  /** Real path of the top-level file. */
  path: string;
  /** Real path of the folder includes must stay in. */
  root: string;
  /** Real paths of every included file, in the order they were first read. */
  includes: string[];
}

/**
 * Aliases are a YAML feature worth keeping (shared schemas), but a few nested anchors can
 * expand into billions of nodes; `yaml` refuses documents that dereference more than this.
 */
export const MAX_ALIAS_COUNT = 100;

/**
 * Includes multiply: a file that includes another ten times, which includes a third ten times,
 * … needs only a few kilobytes to describe millions of values, and the alias limit cannot see
 * it (each file is small). So the whole expansion is bounded, counting every use of a file.
 * A large real workflow (30 roles with rich schemas) is a few thousand values.
 */
export const MAX_EXPANDED_VALUES = 100_000;
/** Characters of text (keys and strings) in the expanded workflow, every include counted. */
export const MAX_EXPANDED_CHARS = 4 * 1024 * 1024;

const PARSED_EXTENSIONS = new Set([".yaml", ".yml", ".json"]);

class IncludeDirective {
  constructor(readonly target: string) {}
}

const includeTag: ScalarTag = {
  tag: "!include",
  resolve: (value) => new IncludeDirective(value),
};

/** How to load: `cacheDir` keeps parsed files between processes (see parse-cache.ts). */
export interface LoadWorkflowOptions {
  cacheDir?: string | undefined;
}

interface LoadState {
  root: string;
  cacheDir: string | undefined;
  errors: string[];
  includes: string[];
  /** A file's value before its includes are expanded (null when it failed), read once. */
  parsed: Map<string, unknown>;
  /** What the expansion has produced so far. */
  values: number;
  chars: number;
}

/** Thrown when the expansion passes a limit: nothing more is read or built after it. */
class ExpansionTooLarge extends Error {
  constructor(readonly problem: string) {
    super(problem);
  }
}

/**
 * Read a workflow file: YAML with `!include <relative path>` anywhere. Included `.yaml`, `.yml`
 * and `.json` files are parsed (includes inside them resolve relative to that file), anything
 * else becomes a string; every file must be UTF-8. Every include must resolve, after symlinks,
 * inside the folder of the top-level file. All problems are collected and thrown as one
 * WORKFLOW_INVALID error.
 */
export function loadWorkflowFile(
  file: string,
  options: LoadWorkflowOptions = {},
): LoadedWorkflowFile {
  const absolute = resolve(file);
  if (!existsSync(absolute)) {
    throw new UwfError("WORKFLOW_NOT_FOUND", `workflow file "${file}" does not exist`, {
      hint: missingFileHint(file, absolute),
    });
  }
  const real = realpathSync(absolute);
  const kind = fileKind(statSync(real));
  if (kind === "a directory") {
    // Nothing to read rather than something wrong in it: the same exit as a missing file.
    throw new UwfError(
      "WORKFLOW_NOT_FOUND",
      `"${file}" is a directory without index.yaml or index.yml`,
      { hint: "Pass a workflow YAML file, or a folder holding index.yaml." },
    );
  }
  if (kind !== null) {
    throw workflowInvalidError(file, [`"${file}" is ${kind}: a workflow must be a regular file`]);
  }
  const state: LoadState = {
    root: dirname(real),
    cacheDir: options.cacheDir,
    errors: [],
    includes: [],
    parsed: new Map(),
    values: 0,
    chars: 0,
  };
  let value: unknown;
  try {
    value = expandFile(real, [real], state, []);
  } catch (error) {
    if (!(error instanceof ExpansionTooLarge)) throw error;
    throw workflowInvalidError(file, [...state.errors, error.problem]);
  }

  if (state.errors.length === 0) {
    const problem = rootShapeProblem(value);
    if (problem !== null) state.errors.push(`${displayName(real, state)}: ${problem}`);
  }
  if (state.errors.length > 0) throw workflowInvalidError(file, state.errors);
  return {
    definition: value as Record<string, unknown>,
    path: real,
    root: state.root,
    includes: state.includes,
  };
}

/**
 * What to try when a workflow file is missing: the same path with a YAML extension when one
 * exists (`validate examples/hello`), else the path or a registered workflow's commands.
 */
function missingFileHint(file: string, absolute: string): string {
  for (const extension of [".yaml", ".yml"]) {
    if (existsSync(absolute + extension)) return `Did you mean "${file}${extension}"?`;
  }
  return "Check the path. This command reads a file; a registered workflow is shown by `uwf workflow show <name>` (`uwf workflow list` lists them).";
}

function rootShapeProblem(value: unknown): string | null {
  if (value === null || value === undefined) {
    return "the file is empty: a workflow is a YAML mapping with name, roles and graph";
  }
  if (typeof value !== "object" || value instanceof IncludeDirective) {
    return `the top level must be a mapping with name, roles and graph, found a ${typeof value}`;
  }
  if (Array.isArray(value)) {
    return "the top level must be a mapping with name, roles and graph, found a sequence";
  }
  return null;
}

/** A YAML file's value with its includes expanded; the file is parsed once however often used. */
function expandFile(real: string, chain: string[], state: LoadState, ancestors: object[]): unknown {
  if (!state.parsed.has(real)) state.parsed.set(real, parseYamlFile(real, state));
  return expand(state.parsed.get(real), real, chain, state, ancestors);
}

function parseYamlFile(real: string, state: LoadState): unknown {
  const name = displayName(real, state);
  const source = readText(real, state);
  if (source === null) return null;
  const { cacheDir } = state;
  if (cacheDir !== undefined) {
    const cached = readParsedWorkflow(
      cacheDir,
      real,
      source,
      (target) => new IncludeDirective(target),
    );
    if (cached !== undefined) return cached;
  }

  const doc = parseYamlSource(source, name, [includeTag], state.errors);
  if (doc === null) return null;

  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    state.errors.push(
      `${name}: refused to expand YAML aliases (${reason}); a workflow may dereference at most ${MAX_ALIAS_COUNT} aliases`,
    );
    return null;
  }
  if (cacheDir !== undefined) {
    writeParsedWorkflow(cacheDir, real, source, value, (item) =>
      item instanceof IncludeDirective ? item.target : null,
    );
  }
  return value;
}

/**
 * Replace include directives, depth first, refusing self-containing alias structures.
 * `ancestors` are the collections around `value`, through the files that include it: aliases
 * and includes stack levels no parser saw, and every later walk of the value recurses too.
 */
function expand(
  value: unknown,
  file: string,
  chain: string[],
  state: LoadState,
  ancestors: object[],
): unknown {
  if (value instanceof IncludeDirective) {
    return include(value.target, file, chain, state, ancestors);
  }
  charge(state, chain, typeof value === "string" ? value.length : 0);
  if (value === null || typeof value !== "object") return value;
  if (ancestors.includes(value)) {
    state.errors.push(
      `${displayName(file, state)}: a YAML alias refers to a node that contains it (a circular structure)`,
    );
    return null;
  }
  const inside = [...ancestors, value];
  if (inside.length > MAX_NESTING_DEPTH) {
    throw new ExpansionTooLarge(
      `nesting is too deep (over ${MAX_NESTING_DEPTH} levels, counting YAML aliases and every !include); stopped while expanding ${chainNames(chain, state)}: a workflow never needs that many, flatten the structure`,
    );
  }
  if (Array.isArray(value)) return value.map((item) => expand(item, file, chain, state, inside));
  // fromEntries defines own properties, so a "__proto__" key stays data, never a prototype.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      charge(state, chain, key.length);
      return [key, expand(item, file, chain, state, inside)];
    }),
  );
}

/** Count one more value (and its characters); stop the whole load once past a limit. */
function charge(state: LoadState, chain: string[], chars: number): void {
  state.values += 1;
  state.chars += chars;
  if (state.values <= MAX_EXPANDED_VALUES && state.chars <= MAX_EXPANDED_CHARS) return;
  const what =
    state.values > MAX_EXPANDED_VALUES
      ? `more than ${MAX_EXPANDED_VALUES} values`
      : `more than ${MAX_EXPANDED_CHARS / (1024 * 1024)} MiB of text`;
  throw new ExpansionTooLarge(
    `the workflow expands to ${what} (the limit is ${MAX_EXPANDED_VALUES} values and ${MAX_EXPANDED_CHARS / (1024 * 1024)} MiB of text, counting every !include each time it is used); stopped while expanding ${chainNames(chain, state)}`,
  );
}

function chainNames(chain: string[], state: LoadState): string {
  return chain.map((p) => displayName(p, state)).join(" → ");
}

function include(
  target: string,
  from: string,
  chain: string[],
  state: LoadState,
  ancestors: object[],
): unknown {
  // Where the directive is written is looked up only for a message (a parse from the cache
  // carries no positions), and said once however often the file includes the same path.
  const refuse = (problem: string): null => {
    const message = `${includeAt(from, target, state)}: !include "${target}"${problem}`;
    if (!state.errors.includes(message)) state.errors.push(message);
    return null;
  };
  if (target.trim() === "") return refuse(": the include path is empty");
  if (isAbsolute(target))
    return refuse(": the include path must be relative to the including file");
  const candidate = resolve(dirname(from), target);
  if (!existsSync(candidate)) return refuse(`: file not found (${candidate})`);
  const real = realpathSync(candidate);
  if (!isInside(state.root, real)) {
    const how = isInside(state.root, candidate) ? " through a symlink" : "";
    return refuse(
      ` resolves${how} to "${real}", outside the workflow folder "${state.root}"; includes must stay inside the folder of the workflow file`,
    );
  }
  // Only regular files: reading a FIFO would wait for a writer forever, a device never ends.
  const kind = fileKind(statSync(real));
  if (kind !== null) {
    return refuse(`: is ${kind}, not a regular file; only regular files can be included`);
  }
  if (chain.includes(real)) {
    const cycle = [...chain.slice(chain.indexOf(real)), real].map((p) => displayName(p, state));
    state.errors.push(`include cycle: ${cycle.join(" → ")}`);
    return null;
  }
  if (!state.includes.includes(real)) state.includes.push(real);

  const extension = extname(real).toLowerCase();
  const inner = [...chain, real];
  if (extension === ".yaml" || extension === ".yml") {
    return expandFile(real, inner, state, ancestors);
  }
  if (!state.parsed.has(real)) {
    state.parsed.set(
      real,
      PARSED_EXTENSIONS.has(extension) ? parseJsonFile(real, state) : readText(real, state),
    );
  }
  return expand(state.parsed.get(real), real, inner, state, ancestors);
}

/**
 * `file:line:col` of the first `!include <target>` in a YAML file (the file name alone when it
 * cannot be found again), for messages: the file is parsed once more, on this error path only.
 */
function includeAt(from: string, target: string, state: LoadState): string {
  const name = displayName(from, state);
  let source: string | null;
  try {
    source = decodeUtf8(readRegularFile(from), name, []);
  } catch {
    return name;
  }
  if (source === null) return name;
  const doc = parseYamlSource(source, name, [includeTag], []);
  const value = doc === null ? undefined : firstInclude(doc.contents, target);
  if (value === undefined) return name;
  // The node starts at its value; the message points at the tag before it, as the parser does.
  const offset = Math.max(0, source.lastIndexOf("!include", value));
  const before = source.slice(0, offset);
  const line = before.split("\n").length;
  return `${name}:${line}:${offset - before.lastIndexOf("\n")}`;
}

/** The source offset of the first scalar tagged `!include <target>` under `node`. */
function firstInclude(node: unknown, target: string): number | undefined {
  if (node === null || typeof node !== "object") return undefined;
  const item = node as { tag?: unknown; value?: unknown; range?: number[]; items?: unknown[] };
  if (item.value instanceof IncludeDirective && item.value.target === target)
    return item.range?.[0];
  if (Array.isArray(item.items)) {
    for (const child of item.items) {
      // A mapping's items are pairs: look in the key, then the value.
      const pair = child as { key?: unknown; value?: unknown };
      const found =
        pair !== null && typeof pair === "object" && "key" in pair
          ? (firstInclude(pair.key, target) ?? firstInclude(pair.value, target))
          : firstInclude(child, target);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function parseJsonFile(real: string, state: LoadState): unknown {
  const source = readText(real, state);
  if (source === null) return null;
  return parseJsonSource(source, displayName(real, state), state.errors);
}

function readText(real: string, state: LoadState): string | null {
  let bytes: Buffer;
  try {
    bytes = readRegularFile(real);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    state.errors.push(`${displayName(real, state)}: cannot read the file: ${reason}`);
    return null;
  }
  return decodeUtf8(bytes, displayName(real, state), state.errors);
}

/**
 * Read a file that must be regular. The check is made again on the open descriptor (opened
 * without blocking), so a file swapped for a FIFO after the stat cannot hang the load.
 */
function readRegularFile(path: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const kind = fileKind(fstatSync(fd));
    if (kind !== null) throw new Error(`it is ${kind}, not a regular file`);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** null for a regular file, else what it is, for messages. */
function fileKind(stats: Stats): string | null {
  if (stats.isFile()) return null;
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a named pipe (FIFO)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  return "a special file";
}

function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** Paths in messages are relative to the workflow folder, so they read the same anywhere. */
function displayName(real: string, state: LoadState): string {
  return isInside(state.root, real) ? relative(state.root, real) : real;
}
