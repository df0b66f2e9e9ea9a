import {
  type EdgeTarget,
  type Graph,
  type JsonSchema,
  type RolePayload,
  type WorkflowPayload,
  workflowNodeKind,
} from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";
import { isUwfError, UwfError } from "@united-workforce/util";
import { inputsNotCompilable } from "./inputs.js";
import { frontmatterNotCompilable } from "./messages.js";
import type { WorkflowDefinition } from "./validate.js";

/** The CAS calls materialising needs; `Cas` from the store provides them. */
export type MaterialiseStore = Pick<Cas, "putSchema" | "put" | "builtin">;

/**
 * Store a validated workflow: each role's frontmatter becomes a schema node, the workflow a
 * workflow node naming them by hash. Returns the workflow's hash. Canonical JSON makes it
 * deterministic: the same definition always gives the same hash, whatever its key order.
 * A frontmatter JSON Schema cannot compile fails as WORKFLOW_INVALID naming every such role.
 */
export async function materialiseWorkflow(
  cas: MaterialiseStore,
  definition: WorkflowDefinition,
): Promise<string> {
  const payload = await toWorkflowPayload(cas, definition);
  return cas.put(cas.builtin(workflowNodeKind(payload)), payload);
}

export async function toWorkflowPayload(
  cas: Pick<Cas, "putSchema">,
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
      problems.push(inputsNotCompilable(error.message));
    }
  }
  for (const [name, role] of Object.entries(definition.roles)) {
    let frontmatter: string;
    try {
      frontmatter = await cas.putSchema(role.frontmatter as JsonSchema);
    } catch (error) {
      if (!isUwfError(error) || error.code !== "SCHEMA_INVALID") throw error;
      problems.push(frontmatterNotCompilable(name, error.message));
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
  const graph: Graph = Object.fromEntries(
    Object.entries(definition.graph).map(([source, edges]) => [
      source,
      Object.fromEntries(Object.entries(edges).map(([status, edge]) => [status, toEdge(edge)])),
    ]),
  );

  const workflow: WorkflowPayload = { name: definition.name, roles, graph };
  if (definition.description !== undefined) workflow.description = definition.description;
  if (inputs !== undefined) workflow.inputs = inputs;
  if (definition.maxSteps !== undefined) workflow.maxSteps = definition.maxSteps;
  // Only `true` is stored: `false` is the default, and the node keeps its first-edition hash.
  if (definition.worktree === true) workflow.worktree = true;
  return workflow;
}

function toEdge(edge: EdgeTarget): EdgeTarget {
  return edge.location === undefined
    ? { role: edge.role, prompt: edge.prompt }
    : { role: edge.role, prompt: edge.prompt, location: edge.location };
}
