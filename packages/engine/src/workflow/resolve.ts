import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import {
  isHash,
  NAME_PATTERN,
  WORKFLOW_KINDS,
  type WorkflowPayload,
} from "@united-workforce/protocol";
import type { Cas, RegistryStore } from "@united-workforce/store";
import { isUwfError, UwfError } from "@united-workforce/util";
import { workflowInvalidError } from "./invalid.js";
import { loadWorkflowFile } from "./load.js";
import { materialiseWorkflow } from "./materialise.js";
import { schemaProblems } from "./schema-check.js";
import { validateWorkflow, type WorkflowValidation } from "./validate.js";

export type WorkflowSource = "hash" | "file" | "workflows-dir" | "registry";

export interface ResolvedWorkflow {
  hash: string;
  payload: WorkflowPayload;
  source: WorkflowSource;
  /** The file read, for the file and `.workflows` sources; null otherwise. */
  path: string | null;
  warnings: string[];
}

export interface ResolveContext {
  cwd: string;
  cas: Pick<Cas, "has" | "get" | "getPayload" | "builtin" | "put" | "putSchema">;
  registry: Pick<RegistryStore, "get">;
  /** Where compiled validators are cached, to check role schemas of a file without ajv. */
  validatorCacheDir?: string;
}

/** A workflow file, loaded and validated; `path` is its real path. */
export interface LoadedWorkflow extends WorkflowValidation {
  path: string;
  includes: string[];
}

/** Folder names and file names that hold a project's workflows, in lookup order. */
const WORKFLOWS_DIR = ".workflows";
const workflowFileCandidates = (name: string): string[] => [
  `${name}.yaml`,
  `${name}.yml`,
  join(name, "index.yaml"),
  join(name, "index.yml"),
];

/**
 * The one resolver for a `<workflow>` argument, tried in this order:
 * 1. a CAS hash of a stored workflow node;
 * 2. a file path (or a folder holding index.yaml), loaded, validated and materialised;
 * 3. the nearest `.workflows/<name>.yaml|.yml` or `.workflows/<name>/index.yaml`, walking up
 *    from `cwd` and stopping at the repository root (the first folder holding `.git`);
 * 4. the registry.
 * A 13-character argument that looks like a hash but is not a stored workflow node falls
 * through to the file lookup, so a file that happens to have such a name still resolves.
 */
export async function resolveWorkflow(
  ref: string,
  context: ResolveContext,
): Promise<ResolvedWorkflow> {
  const { cwd, cas, registry } = context;
  if (ref.trim() === "") {
    throw new UwfError("USAGE", "a workflow reference is required", {
      hint: "Pass a workflow name, hash or the path of a workflow YAML file.",
    });
  }
  const tried: string[] = [];

  if (isHash(ref)) {
    if (await cas.has(ref)) {
      const node = await cas.get(ref);
      if (WORKFLOW_KINDS.some((kind) => node.type === cas.builtin(kind))) {
        return {
          hash: ref,
          payload: node.payload as unknown as WorkflowPayload,
          source: "hash",
          path: null,
          warnings: [],
        };
      }
      tried.push(`CAS hash ${ref}: a stored node, but not a workflow`);
    } else {
      tried.push(`CAS hash ${ref}: not in the store`);
    }
  }

  const asPath = resolve(cwd, ref);
  const file = workflowFileAt(asPath);
  if (file !== null) return fromFile(file, "file", cas, context.validatorCacheDir);
  tried.push(`file ${asPath}: does not exist`);

  if (!NAME_PATTERN.test(ref)) {
    throw notFound(
      ref,
      tried,
      `"${ref}" is not a workflow name, so .workflows/ and the registry were not searched`,
    );
  }

  const searched: string[] = [];
  const found = findInWorkflowDirs(ref, cwd, searched);
  if (found !== null) return fromFile(found, "workflows-dir", cas, context.validatorCacheDir);
  tried.push(
    `${WORKFLOWS_DIR}/ folders: ${searched.length === 0 ? "none found" : searched.join(", ")}`,
  );

  const entry = await registry.get(ref);
  if (entry !== null) {
    return {
      hash: entry.current,
      payload: await cas.getPayload<WorkflowPayload>(entry.current, WORKFLOW_KINDS),
      source: "registry",
      path: null,
      warnings: [],
    };
  }
  tried.push(`registry: no workflow named "${ref}"`);
  throw notFound(ref, tried, null);
}

/**
 * Load and validate a workflow file (or a folder holding index.yaml) without storing anything,
 * for `uwf workflow validate|add`. A file that cannot be parsed is reported like any other
 * invalid workflow (valid: false), so callers get one result shape; a missing file throws
 * WORKFLOW_NOT_FOUND.
 */
export async function loadAndValidate(
  path: string,
  options: { validatorCacheDir?: string } = {},
): Promise<LoadedWorkflow> {
  let loaded: ReturnType<typeof loadWorkflowFile>;
  try {
    loaded = loadWorkflowFile(workflowFileAt(resolve(path)) ?? path);
  } catch (error) {
    if (isUwfError(error) && error.code === "WORKFLOW_INVALID") {
      const errors = (error.details?.errors as string[] | undefined) ?? [error.message];
      return {
        valid: false,
        name: null,
        errors,
        warnings: [],
        definition: null,
        path: resolve(path),
        includes: [],
      };
    }
    throw error;
  }
  const validation = validateWorkflow(loaded.definition, { fileName: loaded.path });
  const problems =
    validation.definition === null
      ? []
      : await schemaProblems(validation.definition, options.validatorCacheDir);
  if (problems.length > 0) {
    return {
      ...validation,
      valid: false,
      errors: problems,
      definition: null,
      path: loaded.path,
      includes: loaded.includes,
    };
  }
  return { ...validation, path: loaded.path, includes: loaded.includes };
}

async function fromFile(
  path: string,
  source: "file" | "workflows-dir",
  cas: ResolveContext["cas"],
  validatorCacheDir: string | undefined,
): Promise<ResolvedWorkflow> {
  const loaded = await loadAndValidate(
    path,
    validatorCacheDir === undefined ? {} : { validatorCacheDir },
  );
  if (!loaded.valid || loaded.definition === null) {
    throw workflowInvalidError(path, loaded.errors, loaded.warnings);
  }
  const hash = await materialiseWorkflow(cas, loaded.definition);
  return {
    hash,
    payload: await cas.getPayload<WorkflowPayload>(hash, WORKFLOW_KINDS),
    source,
    path: loaded.path,
    warnings: loaded.warnings,
  };
}

/** The workflow file a path names: the file itself, or a folder's index.yaml|index.yml. */
function workflowFileAt(path: string): string | null {
  if (!existsSync(path)) return null;
  if (!statSync(path).isDirectory()) return path;
  for (const index of ["index.yaml", "index.yml"]) {
    const candidate = join(path, index);
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

function findInWorkflowDirs(name: string, cwd: string, searched: string[]): string | null {
  let dir = resolve(cwd);
  for (;;) {
    const workflows = join(dir, WORKFLOWS_DIR);
    if (existsSync(workflows) && statSync(workflows).isDirectory()) {
      searched.push(workflows);
      for (const candidate of workflowFileCandidates(name)) {
        const path = join(workflows, candidate);
        if (existsSync(path) && statSync(path).isFile()) return path;
      }
    }
    const parent = dirname(dir);
    if (existsSync(join(dir, ".git")) || parent === dir) return null;
    dir = parent;
  }
}

function notFound(ref: string, tried: string[], note: string | null): UwfError {
  const lines = note === null ? tried : [...tried, note];
  return new UwfError(
    "WORKFLOW_NOT_FOUND",
    `workflow "${ref}" not found; tried:\n${lines.map((l) => `  - ${l}`).join("\n")}`,
    {
      hint: "Run `uwf workflow list` to see registered workflows, or pass the path of a workflow YAML file.",
      details: { ref, tried: lines },
    },
  );
}
