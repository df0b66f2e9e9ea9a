import { dirname, relative } from "node:path";
import { isPlainObject, START } from "@united-workforce/protocol";
import { isUwfError, UwfError } from "@united-workforce/util";
import { fanoutPath } from "../moderator/evaluate.js";
import type { FanoutWorkflow, WorkflowDefinition } from "./definition.js";
import { follow } from "./fanout-rules.js";
import { inputsFields } from "./inputs.js";
import { readRoleExits } from "./role-exits.js";
import { propertiesOf, requiredOf, type SchemaMap } from "./schema-shape.js";

/** A child workflow as the lookup found it, with the inputs schema it declares (or null). */
export interface FoundFanoutChild {
  workflow: Omit<FanoutWorkflow, "ref">;
  warnings: string[];
  inputs: SchemaMap | null;
}

/**
 * Looks up one `fanout.workflow` reference the way a `<workflow>` argument is (resolve.ts
 * gives it): relative to `cwd`, with `chain` the real paths of the files being resolved,
 * outermost first, so that a repeat is a cycle.
 */
export type FindFanoutChild = (
  ref: string,
  from: { cwd: string; chain: string[] },
) => Promise<FoundFanoutChild>;

export interface FanoutResolveOptions {
  /** Absent when the caller has no store: then a `fanout.workflow` edge is an internal error. */
  find?: FindFanoutChild;
  /** Real paths of the workflow files being resolved, outermost first: a repeat is a cycle. */
  chain: string[];
}

interface FanoutUse {
  source: string;
  status: string;
  over: string | undefined;
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
  const refs = fanoutWorkflowUses(definition);
  if (refs.size === 0) return { workflows, errors, warnings };
  if (options.find === undefined) {
    throw new UwfError(
      "INTERNAL",
      `workflow "${definition.name}" fans out to other workflows, but no store was given to find them`,
    );
  }
  for (const [ref, uses] of refs) {
    const first = uses[0] as FanoutUse;
    const at = `graph[${first.source}][${first.status}]: fanout.workflow "${ref}"`;
    try {
      const found = await options.find(ref, {
        cwd: dirname(path),
        chain: [...options.chain, path],
      });
      workflows.set(ref, { ref, ...found.workflow });
      for (const warning of found.warnings) warnings.push(`${at}: ${warning}`);
      if (found.inputs === null) continue;
      for (const use of uses) {
        const child = found.workflow.name;
        const problem = childInputsProblem(definition, use, ref, child, found.inputs);
        if (problem !== null) errors.push(problem);
      }
    } catch (error) {
      errors.push(childNotResolved(error, at, path, options.chain));
    }
  }
  return { workflows, errors, warnings };
}

/** Each `fanout.workflow` reference written, with the edges that write it. */
function fanoutWorkflowUses(definition: WorkflowDefinition): Map<string, FanoutUse[]> {
  const refs = new Map<string, FanoutUse[]>();
  for (const [source, edges] of Object.entries(definition.graph)) {
    for (const [status, edge] of Object.entries(edges)) {
      const ref = edge.fanout?.workflow;
      if (ref === undefined) continue;
      refs.set(ref, [...(refs.get(ref) ?? []), { source, status, over: edge.fanout?.over }]);
    }
  }
  return refs;
}

/** The validation error a failed lookup of a child becomes; anything else is rethrown. */
function childNotResolved(error: unknown, at: string, path: string, chain: string[]): string {
  if (!isUwfError(error)) throw error;
  if (error.code === "WORKFLOW_INVALID") {
    const inner = (error.details?.errors as string[] | undefined) ?? [error.message];
    const cycle = error.details?.cycle as string[] | undefined;
    return cycle !== undefined
      ? `${at}: fan-out cycle: ${cycle.map((p) => display(p, chain[0] ?? path)).join(" → ")} (a workflow cannot fan out to itself, directly or through others)`
      : `${at} is invalid: ${inner.join("; ")}`;
  }
  if (error.code === "WORKFLOW_NOT_FOUND") {
    const tried = (error.details?.tried as string[] | undefined) ?? [];
    const near = error.details?.suggestion as string | undefined;
    const guess = near === undefined ? "" : ` (did you mean "${near}"?)`;
    return tried.length > 0
      ? `${at} was not found${guess} (looked for it relative to ${dirname(path)}: ${tried.join("; ")})`
      : `${at}: ${error.message}`;
  }
  if (error.code === "ID_AMBIGUOUS") return `${at}: ${error.message}`;
  throw error;
}

/**
 * A child workflow that declares inputs gets its item as its inputs, so the items must be
 * objects carrying every input it requires. Checked as far as the parent's schemas say.
 */
function childInputsProblem(
  definition: WorkflowDefinition,
  use: FanoutUse,
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
