import type { Runner } from "@united-workforce/engine";
import type { WorkflowPayload } from "@united-workforce/protocol";
import { HASH, notFound } from "./ids.js";

type RegistryEntry = NonNullable<Awaited<ReturnType<Runner["store"]["registry"]["get"]>>>;

// The workflows list, and one workflow at a version.

export interface WorkflowRow {
  name: string;
  hash: string;
  updatedAt: string;
  versions: number;
  description: string;
}

export async function listWorkflows(
  runner: Runner,
): Promise<{ rows: WorkflowRow[]; problems: { name: string; problem: string }[] }> {
  const { entries, problems } = await runner.store.registry.scan();
  const rows: WorkflowRow[] = [];
  for (const entry of entries) {
    let description = "";
    try {
      description = (await runner.workflow(entry.current)).description ?? "";
    } catch {
      description = "";
    }
    rows.push({
      name: entry.name,
      hash: entry.current,
      updatedAt: entry.history[0]?.at ?? "",
      versions: entry.history.length,
      description,
    });
  }
  rows.sort((a, b) => a.name.localeCompare(b.name));
  return { rows, problems: problems.map((p) => ({ name: p.name, problem: p.problem })) };
}

export interface WorkflowView {
  name: string;
  hash: string;
  /** The registered current version, when this name is registered. */
  current: string | null;
  payload: WorkflowPayload;
  schemas: Record<string, unknown>;
  history: { hash: string; at: string }[];
  /** False for a version never registered under its name (started from a file, imported, a fan-out's child workflow). */
  registered: boolean;
}

/**
 * A workflow by name, at its registered current version or at `version` (a hash: a thread
 * links to the version it is pinned to, which may never have been registered).
 */
export async function workflowView(
  runner: Runner,
  name: string,
  version: string | null,
): Promise<WorkflowView> {
  const entry = await runner.store.registry.get(name);
  if (version !== null && !HASH.test(version))
    throw notFound("WORKFLOW_NOT_FOUND", `"${version}" is not a workflow hash`);
  const hash = version ?? entry?.current;
  if (hash === undefined)
    throw notFound("WORKFLOW_NOT_FOUND", `no workflow named "${name}" is registered`);
  const payload = await runner.workflow(hash);
  if (payload.name !== name)
    throw notFound("WORKFLOW_NOT_FOUND", `${hash} is workflow ${payload.name}, not ${name}`);
  return versionView(runner, hash, entry);
}

/**
 * A workflow version by its hash alone: what a thread is pinned to, whether or not its name is
 * registered (a thread started from a file, imported, a fan-out's child running another file).
 */
export async function workflowByHash(runner: Runner, hash: string): Promise<WorkflowView> {
  if (!HASH.test(hash)) throw notFound("WORKFLOW_NOT_FOUND", `"${hash}" is not a workflow hash`);
  let name: string;
  try {
    name = (await runner.workflow(hash)).name;
  } catch {
    throw notFound("WORKFLOW_NOT_FOUND", `no workflow ${hash} is stored`);
  }
  // A fan-out child's workflow is named `<parent>/<role>`, which no registry entry can be.
  let entry: RegistryEntry | null = null;
  try {
    entry = await runner.store.registry.get(name);
  } catch {
    entry = null;
  }
  return versionView(runner, hash, entry);
}

async function versionView(
  runner: Runner,
  hash: string,
  entry: RegistryEntry | null,
): Promise<WorkflowView> {
  const payload = await runner.workflow(hash);
  const name = payload.name;
  const schemas: Record<string, unknown> = {};
  for (const [role, def] of Object.entries(payload.roles)) {
    schemas[role] = await runner.store.cas.getPayload(def.frontmatter);
  }
  return {
    name,
    hash,
    current: entry?.current ?? null,
    payload,
    schemas,
    history: entry?.history ?? [],
    registered: entry?.history.some((h) => h.hash === hash) ?? false,
  };
}
