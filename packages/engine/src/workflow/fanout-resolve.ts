import { dirname, relative } from "node:path";
import type { WorkflowPayload } from "@united-workforce/protocol";
import { isUwfError, UwfError } from "@united-workforce/util";
import type { ResolveContext, WorkflowSource } from "./resolve.js";
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
  const refs = new Map<string, string>();
  for (const [source, edges] of Object.entries(definition.graph)) {
    for (const [status, edge] of Object.entries(edges)) {
      const ref = edge.fanout?.workflow;
      if (ref !== undefined && !refs.has(ref)) refs.set(ref, `graph[${source}][${status}]`);
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
  for (const [ref, where] of refs) {
    const at = `${where}: fanout.workflow "${ref}"`;
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
          `${at} was not found (looked for it relative to ${dirname(path)}: ${tried.join("; ")})`,
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
