import { dirname, relative } from "node:path";
import { isPlainObject, START, type WorkflowPayload } from "@united-workforce/protocol";
import { isUwfError, UwfError } from "@united-workforce/util";
import { fanoutPath } from "../moderator/evaluate.js";
import { follow } from "./fanout-rules.js";
import { inputsFields } from "./inputs.js";
import type { ResolveContext, WorkflowSource } from "./resolve.js";
import { readRoleExits } from "./role-exits.js";
import { propertiesOf, requiredOf, type SchemaMap } from "./schema-shape.js";
import type { WorkflowDefinition } from "./validate.js";

/** A `fanout.workflow` child, found the way a `<workflow>` argument is (see resolve.ts). */
export interface FanoutWorkflow {
  /** What the edge wrote: a name, a path relative to the parent file, or a hash. */
  ref: string;
  hash: string;
  name: string;
  payload: WorkflowPayload;
  source: WorkflowSource;
  /** Read from a file and not stored yet: materialising the parent stores it. */
  definition: WorkflowDefinition | null;
}

/** The store a fan-out's child workflow is looked up in (a name, a hash). */
export type FanoutStore = Pick<ResolveContext, "cas" | "registry">;

export interface FanoutResolveOptions {
  /** Opened only when a workflow fans out to another workflow. */
  store?: () => Promise<FanoutStore>;
  validatorCacheDir?: string;
  /** Real paths of the workflow files being resolved, outermost first: a repeat is a cycle. */
  chain: string[];
}

/**
 * Resolve every `fanout.workflow` of a valid definition read from `path`, relative to that
 * file's folder: a hash, a path, a `.workflows/` name, a registered name. A child read from a
 * file is validated (its own fan-outs resolved in turn) but not stored. Problems come back as
 * validation errors naming the edge.
 */
export async function resolveFanoutWorkflows(
  definition: WorkflowDefinition,
  path: string,
  options: FanoutResolveOptions,
): Promise<{ workflows: Map<string, FanoutWorkflow>; errors: string[]; warnings: string[] }> {
  const workflows = new Map<string, FanoutWorkflow>();
  const errors: string[] = [];
  const warnings: string[] = [];
  const refs = new Map<string, { source: string; status: string; over: string | undefined }[]>();
  for (const [source, edges] of Object.entries(definition.graph)) {
    for (const [status, edge] of Object.entries(edges)) {
      const ref = edge.fanout?.workflow;
      if (ref === undefined) continue;
      refs.set(ref, [...(refs.get(ref) ?? []), { source, status, over: edge.fanout?.over }]);
    }
  }
  if (refs.size === 0) return { workflows, errors, warnings };
  if (options.store === undefined) {
    throw new UwfError(
      "INTERNAL",
      `workflow "${definition.name}" fans out to other workflows, but no store was given to find them`,
    );
  }
  const store = await options.store();
  // Imported here: resolve.ts imports this file.
  const { resolveWorkflow } = await import("./resolve.js");
  for (const [ref, uses] of refs) {
    const first = uses[0] as (typeof uses)[number];
    const at = `graph[${first.source}][${first.status}]: fanout.workflow "${ref}"`;
    try {
      const found = await resolveWorkflow(ref, {
        cwd: dirname(path),
        cas: store.cas,
        registry: store.registry,
        deferWrite: true,
        chain: [...options.chain, path],
        ...(options.validatorCacheDir === undefined
          ? {}
          : { validatorCacheDir: options.validatorCacheDir }),
      });
      workflows.set(ref, {
        ref,
        hash: found.hash,
        name: found.payload.name,
        payload: found.payload,
        source: found.source,
        definition: found.unstored,
      });
      for (const warning of found.warnings) warnings.push(`${at}: ${warning}`);
      const inputs =
        found.unstored !== null
          ? (found.unstored.inputs ?? null)
          : found.payload.inputs === undefined
            ? null
            : ((await store.cas.get(found.payload.inputs)).payload as SchemaMap);
      if (inputs !== null) {
        for (const use of uses) {
          const problem = childInputsProblem(definition, use, ref, found.payload.name, inputs);
          if (problem !== null) errors.push(problem);
        }
      }
    } catch (error) {
      if (!isUwfError(error)) throw error;
      if (error.code === "WORKFLOW_INVALID") {
        const inner = (error.details?.errors as string[] | undefined) ?? [error.message];
        const cycle = error.details?.cycle as string[] | undefined;
        errors.push(
          cycle !== undefined
            ? `${at}: fan-out cycle: ${cycle.map((p) => display(p, options.chain[0] ?? path)).join(" → ")} (a workflow cannot fan out to itself, directly or through others)`
            : `${at} is invalid: ${inner.join("; ")}`,
        );
      } else if (error.code === "WORKFLOW_NOT_FOUND") {
        const tried = (error.details?.tried as string[] | undefined) ?? [];
        errors.push(
          tried.length > 0
            ? `${at} was not found (looked for it relative to ${dirname(path)}: ${tried.join("; ")})`
            : `${at}: ${error.message}`,
        );
      } else if (error.code === "ID_AMBIGUOUS") {
        errors.push(`${at}: ${error.message}`);
      } else {
        throw error;
      }
    }
  }
  return { workflows, errors, warnings };
}

/**
 * A child workflow that declares inputs gets its item as its inputs, so the items must be
 * objects carrying every input it requires. Checked as far as the parent's schemas say.
 */
function childInputsProblem(
  definition: WorkflowDefinition,
  use: { source: string; status: string; over: string | undefined },
  ref: string,
  child: string,
  inputs: SchemaMap,
): string | null {
  const at = `graph[${use.source}][${use.status}]: fanout.workflow "${ref}"`;
  const required = requiredOf(inputs);
  if (use.over === undefined) {
    return `${at} declares inputs (workflow "${child}"), which each child takes from its item, but without "over" the one child's item is null: fan out over a list of input objects`;
  }
  const view: SchemaMap = inputsFields(
    isPlainObject(definition.inputs) ? definition.inputs : null,
    definition.inputs !== undefined,
  );
  if (use.source !== START) {
    const frontmatter = definition.roles[use.source]?.frontmatter;
    const output = frontmatter
      ? readRoleExits(use.source, frontmatter, [])?.outputs.get(use.status)
      : undefined;
    if (output === undefined) return null;
    Object.assign(view, output.properties);
  }
  const list = follow(view, fanoutPath(use.over));
  if (!isPlainObject(list) || !isPlainObject(list.items)) return null;
  const items = list.items;
  if (items.type !== undefined && items.type !== "object") {
    return `${at} declares inputs (workflow "${child}"), which each child takes from its item, but the items of fanout.over ${JSON.stringify(use.over)} are declared as ${JSON.stringify(items.type)}: make them objects of the child's inputs`;
  }
  const declared = propertiesOf(items);
  if (declared === null) return null;
  const missing = required.filter((name) => !Object.hasOwn(declared, name));
  if (missing.length === 0) return null;
  return `${at}: workflow "${child}" requires the inputs ${missing.map((n) => `"${n}"`).join(", ")}, which the items of fanout.over ${JSON.stringify(use.over)} do not declare`;
}

/** The error a fan-out cycle raises while resolving the file that closes it. */
export function fanoutCycleError(chain: string[], path: string): UwfError {
  const cycle = [...chain.slice(chain.indexOf(path)), path];
  return new UwfError("WORKFLOW_INVALID", `fan-out cycle: ${cycle.join(" → ")}`, {
    details: { errors: [`fan-out cycle: ${cycle.join(" → ")}`], cycle },
  });
}

function display(path: string, top: string): string {
  const shown = relative(dirname(top), path);
  return shown === "" || shown.startsWith("..") ? path : shown;
}
