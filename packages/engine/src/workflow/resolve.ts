import { realpathSync } from "node:fs";
import { basename, resolve } from "node:path";
import {
  isHash,
  isHashPrefix,
  NAME_PATTERN,
  normalizeId,
  type WorkflowPayload,
  workflowNodeKind,
} from "@united-workforce/protocol";
import type { Cas, RegistryStore } from "@united-workforce/store";
import { isUwfError, nearestWord, UwfError } from "@united-workforce/util";
import type { WorkflowDefinition, WorkflowSource } from "./definition.js";
import {
  type FindFanoutChild,
  fanoutCycleError,
  resolveFanoutWorkflows,
} from "./fanout-resolve.js";
import { workflowInvalidError } from "./invalid.js";
import { loadWorkflowFile } from "./load.js";
import { materialiseWorkflow, toWorkflowPayload } from "./materialise.js";
import { parsedWorkflowCacheDir } from "./parse-cache.js";
import {
  placeProblems,
  problemLine,
  readerProblems,
  type WorkflowProblem,
} from "./problem-positions.js";
import { discardingCas, schemaProblems } from "./schema-check.js";
import type { SchemaMap } from "./schema-shape.js";
import { shadowWarning } from "./shadow.js";
import { validateWorkflow, type WorkflowValidation } from "./validate.js";
import {
  findInWorkflowDirs,
  namesInWorkflowDirs,
  WORKFLOWS_DIR,
  workflowFileAt,
} from "./workflow-files.js";

export interface ResolvedWorkflow {
  hash: string;
  payload: WorkflowPayload;
  source: WorkflowSource;
  /** The file read, for the file and `.workflows` sources; null otherwise. */
  path: string | null;
  warnings: string[];
  /**
   * With `deferWrite`, a workflow read from a file is not stored yet: this is what
   * `materialiseWorkflow` must store (it gives `hash`). Null when the workflow is stored.
   */
  unstored: WorkflowDefinition | null;
}

export interface ResolveContext {
  cwd: string;
  cas: Pick<
    Cas,
    "has" | "get" | "getPayload" | "builtin" | "isKind" | "put" | "putSchema" | "backend"
  >;
  registry: Pick<RegistryStore, "get" | "list">;
  /** Where compiled validators are cached, to check role schemas of a file without ajv. */
  validatorCacheDir?: string;
  /**
   * Leave a workflow read from a file unstored (its hash and payload are computed all the same)
   * so a caller can refuse its other input before anything is written; see `unstored`.
   */
  deferWrite?: boolean;
  /**
   * Real paths of the workflow files whose fan-outs are being resolved, outermost first: a file
   * already on it is a fan-out cycle.
   */
  chain?: string[];
}

/** The store a fan-out's child workflow is looked up in (a name, a hash). */
export type FanoutStore = Pick<ResolveContext, "cas" | "registry">;

/** A workflow file, loaded and validated; `path` is its real path. */
export interface LoadedWorkflow extends Omit<WorkflowValidation, "faultySchemas"> {
  path: string;
  includes: string[];
  /** Every error and warning with its code, path, file, line and column (`--format json`). */
  problems: WorkflowProblem[];
}

/**
 * The one resolver for a `<workflow>` argument, tried in this order:
 * 1. a CAS hash of a stored workflow node;
 * 2. a file path (or a folder holding index.yaml), loaded, validated and materialised;
 * 3. the nearest `.workflows/<name>.yaml|.yml` or `.workflows/<name>/index.yaml`, walking up
 *    from `cwd` and stopping at the repository root (the first folder holding `.git`);
 * 4. the registry;
 * 5. a unique prefix (4 or more characters) of a stored workflow node's hash, last, so a short
 *    name or file is never mistaken for one.
 * Hashes are read in any case (as Crockford Base32: I and L are 1, O is 0).
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

  const asHash = normalizeId(ref);
  if (isHash(asHash)) {
    if (await cas.has(asHash)) {
      const node = await cas.get(asHash);
      if (cas.isKind(node.type, "workflow")) {
        return {
          hash: asHash,
          payload: node.payload as unknown as WorkflowPayload,
          source: "hash",
          path: null,
          warnings: [],
          unstored: null,
        };
      }
      tried.push(`CAS hash ${asHash}: a stored node, but not a workflow`);
    } else {
      tried.push(`CAS hash ${asHash}: not in the store`);
    }
  }

  const asPath = resolve(cwd, ref);
  const file = workflowFileAt(asPath);
  if (file !== null) return fromFile(file, "file", context);
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
  if (found !== null) return fromFile(found, "workflows-dir", context);
  tried.push(
    `${WORKFLOWS_DIR}/ folders: ${searched.length === 0 ? "none found" : searched.join(", ")}`,
  );

  const entry = await registry.get(ref);
  if (entry !== null) {
    return {
      hash: entry.current,
      payload: await cas.getPayload<WorkflowPayload>(entry.current, "workflow"),
      source: "registry",
      path: null,
      warnings: [],
      unstored: null,
    };
  }
  tried.push(`registry: no workflow named "${ref}"`);
  const byPrefix = await workflowByHashPrefix(ref, cas);
  if (byPrefix !== null) return byPrefix;
  const known = [
    ...(await registry.list()).map((entry) => entry.name),
    ...namesInWorkflowDirs(searched),
  ];
  throw notFound(ref, tried, null, nearestWord(ref, known));
}

/** The one stored workflow node whose hash starts with `ref`, or null when none does. */
async function workflowByHashPrefix(
  ref: string,
  cas: ResolveContext["cas"],
): Promise<ResolvedWorkflow | null> {
  const prefix = normalizeId(ref);
  if (!isHashPrefix(ref) || isHash(prefix)) return null;
  const workflows: { hash: string; payload: WorkflowPayload }[] = [];
  for (const hash of await cas.backend.withPrefix(prefix, 50)) {
    const node = await cas.get(hash);
    if (cas.isKind(node.type, "workflow")) {
      workflows.push({ hash, payload: node.payload as unknown as WorkflowPayload });
    }
  }
  if (workflows.length === 1) {
    const [only] = workflows;
    return {
      hash: only!.hash,
      payload: only!.payload,
      source: "hash",
      path: null,
      warnings: [],
      unstored: null,
    };
  }
  if (workflows.length > 1) {
    const hashes = workflows.map((w) => w.hash);
    throw new UwfError(
      "ID_AMBIGUOUS",
      `workflow hash prefix ${prefix} is ambiguous: it matches ${hashes.join(", ")}`,
      {
        hint: "type more characters of the hash so that only one matches",
        details: { prefix, candidates: hashes },
      },
    );
  }
  // Not listed among what was tried: most names that reach here were never meant as hashes.
  return null;
}

/**
 * Load and validate a workflow file (or a folder holding index.yaml) without storing anything,
 * for `uwf workflow validate|add`. A file that cannot be parsed is reported like any other
 * invalid workflow (valid: false), so callers get one result shape; a missing file throws
 * WORKFLOW_NOT_FOUND.
 */
export async function loadAndValidate(
  path: string,
  options: {
    validatorCacheDir?: string;
    /** Where `fanout.workflow` names and hashes are looked up; opened only when one is used. */
    store?: () => Promise<FanoutStore>;
    chain?: string[];
  } = {},
): Promise<LoadedWorkflow> {
  let loaded: ReturnType<typeof loadWorkflowFile>;
  try {
    loaded = loadWorkflowFile(workflowFileAt(resolve(path)) ?? path, {
      cacheDir: parsedWorkflowCacheDir(options.validatorCacheDir),
    });
  } catch (error) {
    if (isUwfError(error) && error.code === "WORKFLOW_INVALID") {
      const read = (error.details?.errors as string[] | undefined) ?? [error.message];
      const problems = readerProblems(basename(path), read);
      return {
        valid: false,
        name: null,
        errors: problems.map(problemLine),
        warnings: [],
        definition: null,
        path: resolve(path),
        includes: [],
        problems,
      };
    }
    throw error;
  }
  const { faultySchemas, ...validation } = validateWorkflow(loaded.definition, {
    fileName: loaded.path,
  });
  // Schemas are compiled whatever else is wrong: every problem is listed at once.
  const problems = [
    ...validation.errors,
    ...(await schemaProblems(loaded.definition, options.validatorCacheDir, faultySchemas)),
  ];
  if (validation.definition !== null && problems.length === 0) {
    const { store, validatorCacheDir } = options;
    const children = await resolveFanoutWorkflows(validation.definition, loaded.path, {
      chain: options.chain ?? [],
      ...(store === undefined ? {} : { find: fanoutChildFinder(store, validatorCacheDir) }),
    });
    problems.push(...children.errors);
    validation.warnings.push(...children.warnings);
    if (children.workflows.size > 0) validation.definition.fanoutWorkflows = children.workflows;
  }
  // Positions are looked up only now, and only when there is something to place.
  const placed = placeProblems(loaded.path, loaded.root, problems, validation.warnings);
  const lines = placed.map(problemLine);
  const errors = lines.slice(0, problems.length);
  const warnings = lines.slice(problems.length);
  const where = { path: loaded.path, includes: loaded.includes, problems: placed };
  if (problems.length > 0) {
    return { ...validation, valid: false, errors, warnings, definition: null, ...where };
  }
  return { ...validation, warnings, ...where };
}

/**
 * How `loadAndValidate` finds a fan-out's child workflow: as a `<workflow>` argument, read
 * without storing. The store is opened once, at the first child looked up.
 */
function fanoutChildFinder(
  openStore: () => Promise<FanoutStore>,
  validatorCacheDir: string | undefined,
): FindFanoutChild {
  let opened: Promise<FanoutStore> | undefined;
  return async (ref, { cwd, chain }) => {
    opened ??= openStore();
    const { cas, registry } = await opened;
    const found = await resolveWorkflow(ref, {
      cwd,
      cas,
      registry,
      deferWrite: true,
      chain,
      ...(validatorCacheDir === undefined ? {} : { validatorCacheDir }),
    });
    const inputs =
      found.unstored !== null
        ? (found.unstored.inputs ?? null)
        : found.payload.inputs === undefined
          ? null
          : ((await cas.get(found.payload.inputs)).payload as SchemaMap);
    return {
      workflow: {
        hash: found.hash,
        name: found.payload.name,
        payload: found.payload,
        source: found.source,
        definition: found.unstored,
      },
      warnings: found.warnings,
      inputs,
    };
  };
}

async function fromFile(
  path: string,
  source: "file" | "workflows-dir",
  context: ResolveContext,
): Promise<ResolvedWorkflow> {
  const { cas, validatorCacheDir } = context;
  const chain = context.chain ?? [];
  if (chain.length > 0) {
    const real = realpathSync(path);
    if (chain.includes(real)) throw fanoutCycleError(chain, real);
  }
  const loaded = await loadAndValidate(path, {
    chain,
    store: async () => ({ cas, registry: context.registry }),
    ...(validatorCacheDir === undefined ? {} : { validatorCacheDir }),
  });
  if (!loaded.valid || loaded.definition === null) {
    throw workflowInvalidError(path, loaded.errors, loaded.warnings, loaded.problems);
  }
  let resolved: ResolvedWorkflow;
  const found = { source, path: loaded.path, warnings: [...loaded.warnings] };
  if (context.deferWrite) {
    // A CAS that keeps nothing hashes exactly as the real one stores.
    const discard = discardingCas(validatorCacheDir);
    const payload = await toWorkflowPayload(discard, loaded.definition);
    const { hash } = await discard.prepare(discard.builtin(workflowNodeKind(payload)), payload);
    resolved = { hash, payload, ...found, unstored: loaded.definition };
  } else {
    const hash = await materialiseWorkflow(cas, loaded.definition);
    const payload = await cas.getPayload<WorkflowPayload>(hash, "workflow");
    resolved = { hash, payload, ...found, unstored: null };
  }
  if (source === "workflows-dir") {
    const name = loaded.definition.name;
    const shadow = await shadowWarning(context.registry, loaded.path, name, resolved.hash);
    if (shadow !== null) resolved.warnings.push(shadow);
  }
  return resolved;
}

/** `near`: a registered or `.workflows/` name that `ref` most likely misspells. */
function notFound(
  ref: string,
  tried: string[],
  note: string | null,
  near?: string | undefined,
): UwfError {
  const lines = note === null ? tried : [...tried, note];
  const guess = near === undefined ? "" : `Did you mean "${near}"? `;
  return new UwfError(
    "WORKFLOW_NOT_FOUND",
    `workflow "${ref}" not found; tried:\n${lines.map((l) => `  - ${l}`).join("\n")}`,
    {
      hint: `${guess}Run \`uwf workflow list\` to see registered workflows, or pass the path of a workflow YAML file.`,
      details: { ref, tried: lines, ...(near === undefined ? {} : { suggestion: near }) },
    },
  );
}
