import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, extname, isAbsolute, relative, resolve, sep } from "node:path";
import { UwfError } from "@united-workforce/util";
import { LineCounter, parseDocument, type ScalarTag } from "yaml";
import { workflowInvalidError } from "./invalid.js";

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

const PARSED_EXTENSIONS = new Set([".yaml", ".yml", ".json"]);

class IncludeDirective {
  constructor(readonly target: string) {}
}

const includeTag: ScalarTag = {
  tag: "!include",
  resolve: (value) => new IncludeDirective(value),
};

interface LoadState {
  root: string;
  errors: string[];
  includes: string[];
}

/**
 * Read a workflow file: YAML with `!include <relative path>` anywhere. Included `.yaml`, `.yml`
 * and `.json` files are parsed (includes inside them resolve relative to that file), anything
 * else becomes a string. Every include must resolve, after symlinks, inside the folder of the
 * top-level file. All problems are collected and thrown as one WORKFLOW_INVALID error.
 */
export function loadWorkflowFile(file: string): LoadedWorkflowFile {
  const absolute = resolve(file);
  if (!existsSync(absolute)) {
    throw new UwfError("WORKFLOW_NOT_FOUND", `workflow file "${file}" does not exist`, {
      hint: "Check the path, or run `uwf workflow list` to see registered workflows.",
    });
  }
  const real = realpathSync(absolute);
  if (statSync(real).isDirectory()) {
    throw workflowInvalidError(file, [
      `"${file}" is a directory: pass a workflow YAML file (or a folder holding index.yaml)`,
    ]);
  }
  const state: LoadState = { root: dirname(real), errors: [], includes: [] };
  const value = parseYamlFile(real, [real], state);

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

function parseYamlFile(real: string, chain: string[], state: LoadState): unknown {
  const name = displayName(real, state);
  const source = readText(real, state);
  if (source === null) return null;

  const lineCounter = new LineCounter();
  const doc = parseDocument(source, {
    customTags: [includeTag],
    lineCounter,
    prettyErrors: false,
  });
  // Warnings are errors here: an unknown tag (a mistyped `!incldue`) would otherwise silently
  // become a plain string.
  const problems = [...doc.errors, ...doc.warnings];
  for (const problem of problems) {
    const { line, col } = lineCounter.linePos(problem.pos[0]);
    state.errors.push(`${name}:${line}:${col}: ${problem.message}`);
  }
  if (problems.length > 0) return null;

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
  return expand(value, real, chain, state, []);
}

/** Replace include directives, depth first, refusing self-containing alias structures. */
function expand(
  value: unknown,
  file: string,
  chain: string[],
  state: LoadState,
  ancestors: object[],
): unknown {
  if (value instanceof IncludeDirective) return include(value.target, file, chain, state);
  if (value === null || typeof value !== "object") return value;
  if (ancestors.includes(value)) {
    state.errors.push(
      `${displayName(file, state)}: a YAML alias refers to a node that contains it (a circular structure)`,
    );
    return null;
  }
  const inside = [...ancestors, value];
  if (Array.isArray(value)) return value.map((item) => expand(item, file, chain, state, inside));
  // fromEntries defines own properties, so a "__proto__" key stays data, never a prototype.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, expand(item, file, chain, state, inside)]),
  );
}

function include(target: string, from: string, chain: string[], state: LoadState): unknown {
  const where = `${displayName(from, state)}: !include "${target}"`;
  if (target.trim() === "") {
    state.errors.push(`${where}: the include path is empty`);
    return null;
  }
  if (isAbsolute(target)) {
    state.errors.push(`${where}: the include path must be relative to the including file`);
    return null;
  }
  const candidate = resolve(dirname(from), target);
  if (!existsSync(candidate)) {
    state.errors.push(`${where}: file not found (${candidate})`);
    return null;
  }
  const real = realpathSync(candidate);
  if (!isInside(state.root, real)) {
    const how = isInside(state.root, candidate) ? " through a symlink" : "";
    state.errors.push(
      `${where} resolves${how} to "${real}", outside the workflow folder "${state.root}"; includes must stay inside the folder of the workflow file`,
    );
    return null;
  }
  if (statSync(real).isDirectory()) {
    state.errors.push(`${where}: is a directory, not a file`);
    return null;
  }
  if (chain.includes(real)) {
    const cycle = [...chain.slice(chain.indexOf(real)), real].map((p) => displayName(p, state));
    state.errors.push(`include cycle: ${cycle.join(" → ")}`);
    return null;
  }
  if (!state.includes.includes(real)) state.includes.push(real);

  const extension = extname(real).toLowerCase();
  if (!PARSED_EXTENSIONS.has(extension)) return readText(real, state);
  if (extension === ".json") return parseJsonFile(real, state);
  return parseYamlFile(real, [...chain, real], state);
}

function parseJsonFile(real: string, state: LoadState): unknown {
  const source = readText(real, state);
  if (source === null) return null;
  try {
    return JSON.parse(source);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    state.errors.push(`${displayName(real, state)}: invalid JSON: ${reason}`);
    return null;
  }
}

function readText(real: string, state: LoadState): string | null {
  try {
    return readFileSync(real, "utf8");
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    state.errors.push(`${displayName(real, state)}: cannot read the file: ${reason}`);
    return null;
  }
}

function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** Paths in messages are relative to the workflow folder, so they read the same anywhere. */
function displayName(real: string, state: LoadState): string {
  return isInside(state.root, real) ? relative(state.root, real) : real;
}
