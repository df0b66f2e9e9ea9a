import {
  type EdgeTarget,
  type Fanout,
  type Graph,
  isHash,
  type JsonSchema,
  normalizeId,
  type RolePayload,
  type WorkflowPayload,
  workflowNodeKind,
} from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";
import { isUwfError, UwfError } from "@united-workforce/util";
import type { EdgeDefinition, WorkflowDefinition } from "./definition.js";
import { childRoleWorkflow, type FanoutDefinition } from "./fanout.js";
import { frontmatterNotCompilable, inputsNotCompilable } from "./messages.js";
import { readRoleExits } from "./role-exits.js";
import { readableCompileError } from "./schema-check.js";

/** The CAS calls materialising needs; `Cas` from the store provides them. */
export type MaterialiseStore = Pick<Cas, "putSchema" | "put" | "builtin">;

/**
 * Store a validated workflow: each role's frontmatter becomes a schema node, the workflow a
 * workflow node naming them by hash. Returns the workflow's hash. Canonical JSON makes it
 * deterministic: the same definition always gives the same hash, whatever its key order.
 * A frontmatter JSON Schema cannot compile fails as WORKFLOW_INVALID naming every such role.
 * A fan-out's child workflow is stored first and pinned by its hash: a `role:` child as the
 * one-role workflow made from that role, a `workflow:` child as resolved by loadAndValidate.
 */
export async function materialiseWorkflow(
  cas: MaterialiseStore,
  definition: WorkflowDefinition,
): Promise<string> {
  const payload = await toWorkflowPayload(cas, definition);
  return cas.put(cas.builtin(workflowNodeKind(payload)), payload);
}

export async function toWorkflowPayload(
  cas: MaterialiseStore,
  definition: WorkflowDefinition,
): Promise<WorkflowPayload> {
  const roles: Record<string, RolePayload> = {};
  const problems: string[] = [];
  let inputs: string | undefined;
  if (definition.inputs !== undefined) {
    try {
      inputs = await cas.putSchema(definition.inputs as JsonSchema);
    } catch (error) {
      if (!isUwfError(error) || error.code !== "SCHEMA_INVALID") throw error;
      problems.push(inputsNotCompilable(readableCompileError(error.message, definition.inputs)));
    }
  }
  for (const [name, role] of Object.entries(definition.roles)) {
    let frontmatter: string;
    try {
      frontmatter = await cas.putSchema(role.frontmatter as JsonSchema);
    } catch (error) {
      if (!isUwfError(error) || error.code !== "SCHEMA_INVALID") throw error;
      problems.push(
        frontmatterNotCompilable(name, readableCompileError(error.message, role.frontmatter)),
      );
      continue;
    }
    const payload: RolePayload = { frontmatter };
    if (role.description !== undefined) payload.description = role.description;
    if (role.goal !== undefined) payload.goal = role.goal;
    if (role.capabilities !== undefined) payload.capabilities = [...role.capabilities];
    if (role.procedure !== undefined) payload.procedure = role.procedure;
    if (role.output !== undefined) payload.output = role.output;
    if (role.agent !== undefined) payload.agent = role.agent;
    if (role.run !== undefined)
      payload.run = typeof role.run === "string" ? role.run : [...role.run];
    if (role.shell !== undefined) payload.shell = role.shell;
    if (role.exitStatus !== undefined) payload.exitStatus = { ...role.exitStatus };
    if (role.timeoutSeconds !== undefined) payload.timeoutSeconds = role.timeoutSeconds;
    if (role.maxVisits !== undefined) payload.maxVisits = role.maxVisits;
    if (role.join === true) payload.join = true;
    roles[name] = payload;
  }

  if (problems.length > 0) {
    throw new UwfError(
      "WORKFLOW_INVALID",
      `workflow "${definition.name}": ${problems.join("; ")}`,
      {
        hint: "Fix the JSON Schema (it must compile as JSON Schema draft-07 unless it declares $schema).",
        details: { errors: problems },
      },
    );
  }

  // fromEntries defines own properties: a status such as "__proto__" stays an ordinary key.
  const sources: [string, Record<string, EdgeTarget>][] = [];
  for (const [source, edges] of Object.entries(definition.graph)) {
    const stored: [string, EdgeTarget][] = [];
    for (const [status, edge] of Object.entries(edges)) {
      const fanout =
        edge.fanout === undefined ? undefined : await toFanout(cas, definition, roles, edge.fanout);
      stored.push([status, toEdge(edge, fanout)]);
    }
    sources.push([source, Object.fromEntries(stored)]);
  }
  const graph: Graph = Object.fromEntries(sources);

  const workflow: WorkflowPayload = { name: definition.name, roles, graph };
  if (definition.description !== undefined) workflow.description = definition.description;
  if (inputs !== undefined) workflow.inputs = inputs;
  if (definition.maxSteps !== undefined) workflow.maxSteps = definition.maxSteps;
  // Only `true` is stored: `false` is the default, and the node keeps its first-edition hash.
  if (definition.worktree === true) workflow.worktree = true;
  // Stored (in the fourth edition) so the triggers travel with the hash: a webhook finds them
  // from a registered workflow. Kept as written: templates and event names are the contract.
  if (definition.on !== undefined) workflow.on = definition.on;
  return workflow;
}

function toEdge(edge: EdgeDefinition, fanout: Fanout | undefined): EdgeTarget {
  const stored: EdgeTarget = { role: edge.role, prompt: edge.prompt };
  if (edge.location !== undefined) stored.location = edge.location;
  if (fanout !== undefined) stored.fanout = fanout;
  return stored;
}

/** A fan-out as stored: its child workflow pinned by hash, the rest as written. */
async function toFanout(
  cas: MaterialiseStore,
  definition: WorkflowDefinition,
  roles: Record<string, RolePayload>,
  fanout: FanoutDefinition,
): Promise<Fanout> {
  const stored: Fanout = { workflow: await childWorkflowHash(cas, definition, roles, fanout) };
  if (fanout.over !== undefined) stored.over = fanout.over;
  if (fanout.concurrency !== undefined) stored.concurrency = fanout.concurrency;
  if (fanout.failure !== undefined) stored.failure = fanout.failure;
  return stored;
}

async function childWorkflowHash(
  cas: MaterialiseStore,
  definition: WorkflowDefinition,
  roles: Record<string, RolePayload>,
  fanout: FanoutDefinition,
): Promise<string> {
  if (fanout.role !== undefined) {
    const role = fanout.role;
    const payload = roles[role];
    const declared = definition.roles[role];
    const exits = declared === undefined ? null : readRoleExits(role, declared.frontmatter, []);
    if (payload === undefined || exits === null) {
      throw new UwfError(
        "INTERNAL",
        `workflow "${definition.name}": fanout.role "${role}" is not a valid role (validate the workflow first)`,
      );
    }
    const child = childRoleWorkflow(
      definition.name,
      role,
      payload,
      exits.statuses,
      fanout.worktree === true,
    );
    return cas.put(cas.builtin(workflowNodeKind(child)), child);
  }
  const ref = fanout.workflow as string;
  const resolved = definition.fanoutWorkflows?.get(ref);
  if (resolved !== undefined) {
    return resolved.definition === null
      ? resolved.hash
      : materialiseWorkflow(cas, resolved.definition);
  }
  // A definition validated without loadAndValidate can still pin a child by its full hash.
  const hash = normalizeId(ref);
  if (isHash(hash)) return hash;
  throw new UwfError(
    "INTERNAL",
    `workflow "${definition.name}": fanout.workflow "${ref}" was not resolved (load the workflow with loadAndValidate)`,
  );
}
