import type {
  EdgeTarget,
  Graph,
  JsonSchema,
  RolePayload,
  WORKFLOW_KINDS,
  WorkflowPayload,
} from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";
import { isUwfError, UwfError } from "@united-workforce/util";
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
  return cas.put(cas.builtin(workflowKind(payload)), payload);
}

/**
 * A workflow with a human or script role is a `workflowSteps` node; any other keeps the
 * `workflow` kind, so its hash is the one it always had.
 */
export function workflowKind(payload: WorkflowPayload): (typeof WORKFLOW_KINDS)[number] {
  const stepRole = Object.values(payload.roles).some(
    (role) => role.agent !== undefined || role.run !== undefined,
  );
  return stepRole ? "workflowSteps" : "workflow";
}

export async function toWorkflowPayload(
  cas: Pick<Cas, "putSchema">,
  definition: WorkflowDefinition,
): Promise<WorkflowPayload> {
  const roles: Record<string, RolePayload> = {};
  const problems: string[] = [];
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
    roles[name] = payload;
  }

  if (problems.length > 0) {
    throw new UwfError(
      "WORKFLOW_INVALID",
      `workflow "${definition.name}": ${problems.join("; ")}`,
      {
        hint: "Fix the role's frontmatter schema (it must compile as JSON Schema draft-07 unless it declares $schema).",
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
  return workflow;
}

function toEdge(edge: EdgeTarget): EdgeTarget {
  return edge.location === undefined
    ? { role: edge.role, prompt: edge.prompt }
    : { role: edge.role, prompt: edge.prompt, location: edge.location };
}
