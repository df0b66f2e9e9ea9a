import { isPlainObject, NAME_PATTERN } from "@united-workforce/protocol";
import type { EdgeDefinition } from "./definition.js";
import { checkFanoutShape, checkJoinRoleShape, JOIN_KEY } from "./fanout.js";
import { checkMaxStepsShape, checkMaxVisitsShape, GUARD_ROLE_KEYS } from "./guards.js";
import { checkInputsShape } from "./inputs.js";
import { unknownKey } from "./messages.js";
import type { SchemaMap } from "./schema-shape.js";
import { checkStepRoleShape, STEP_ROLE_KEYS, type StepRoleSpec } from "./step-roles.js";
import { checkTriggersShape } from "./triggers.js";

const TOP_LEVEL_KEYS = [
  "version",
  "name",
  "description",
  "roles",
  "graph",
  "inputs",
  "maxSteps",
  "worktree",
  "on",
];
/** The workflow format versions uwf reads; a file without `version:` is the same format. */
export const WORKFLOW_FORMAT_VERSIONS = [1];
/** Top-level keys starting so are the author's own (upstream files keep YAML anchors there). */
const EXTENSION_KEY_PREFIX = "x-";
const ROLE_KEYS = [
  "description",
  "goal",
  "capabilities",
  "procedure",
  "output",
  "frontmatter",
  ...STEP_ROLE_KEYS,
  ...GUARD_ROLE_KEYS,
  JOIN_KEY,
];
const ROLE_TEXT_KEYS = ["description", "goal", "procedure", "output"];
const EDGE_KEYS = ["role", "prompt", "location", "fanout"];
const NAME_RULE =
  'names start with a letter or digit and use only letters, digits, ".", "_" and "-"';

export interface Edge {
  source: string;
  status: string;
  target: EdgeDefinition;
}

/** What the shape pass found usable; semantics only look at well-formed parts. */
export interface Shape {
  name: string | null;
  roles: Map<string, SchemaMap | null>;
  /** Human and script roles, once their keys are well formed. */
  stepRoles: Map<string, StepRoleSpec>;
  graph: Map<string, string[]> | null;
  edges: Edge[];
  graphWellFormed: boolean;
  /** The declared `inputs:` schema when well formed; null when absent or malformed. */
  inputs: SchemaMap | null;
  inputsDeclared: boolean;
  /** The guards, where well formed. */
  maxSteps: number | null;
  maxVisits: Map<string, number>;
  /** Roles with `join: true`. */
  joins: Set<string>;
  /**
   * What every `fanout:` written names, well formed or not, so a malformed fan-out does not
   * also make its child role "without a graph entry" or its join "reached by no fan-out".
   */
  fanoutMentions: { childRoles: Set<string>; joins: Set<string> };
}

/**
 * The shape pass: fields, types and unknown keys, every problem collected. Null when the
 * definition is not even a mapping.
 */
export function checkShape(raw: unknown, errors: string[]): Shape | null {
  if (!isPlainObject(raw)) {
    errors.push("a workflow must be a mapping with name, roles and graph");
    return null;
  }
  for (const key of Object.keys(raw)) {
    if (!TOP_LEVEL_KEYS.includes(key) && !key.startsWith(EXTENSION_KEY_PREFIX)) {
      errors.push(unknownKey("unknown top-level key", key, TOP_LEVEL_KEYS));
    }
  }
  if (raw.version !== undefined && !WORKFLOW_FORMAT_VERSIONS.includes(raw.version as number)) {
    errors.push(
      `"version" is ${JSON.stringify(raw.version)}, but uwf reads workflow format version ${WORKFLOW_FORMAT_VERSIONS.join(", ")}: write "version: 1" or leave the line out`,
    );
  }

  let name: string | null = null;
  if (raw.name === undefined) {
    errors.push('missing required field "name"');
  } else if (typeof raw.name !== "string") {
    errors.push('"name" must be a string');
  } else {
    name = raw.name;
    if (!NAME_PATTERN.test(name)) errors.push(`workflow name "${name}" is invalid: ${NAME_RULE}`);
  }
  if (raw.description !== undefined && typeof raw.description !== "string") {
    errors.push('"description" must be a string');
  }
  if (raw.worktree !== undefined && typeof raw.worktree !== "boolean") {
    errors.push(
      '"worktree" must be true or false (true: every thread runs in its own git worktree)',
    );
  }

  const inputs = checkInputsShape(raw.inputs, errors);
  const maxSteps = checkMaxStepsShape(raw.maxSteps, errors);
  checkTriggersShape(raw.on, inputs, raw.inputs !== undefined, errors);
  const stepRoles = new Map<string, StepRoleSpec>();
  const maxVisits = new Map<string, number>();
  const joins = new Set<string>();
  const roles = checkRolesShape(raw.roles, errors, stepRoles, maxVisits, joins);
  const graphErrors: string[] = [];
  const { graph, edges } = checkGraphShape(raw.graph, graphErrors);
  const fanoutMentions = mentionedByFanouts(raw.graph);
  errors.push(...graphErrors);
  return {
    name,
    roles,
    stepRoles,
    graph,
    edges,
    graphWellFormed: graphErrors.length === 0,
    inputs,
    inputsDeclared: raw.inputs !== undefined,
    maxSteps,
    maxVisits,
    joins,
    fanoutMentions,
  };
}

function mentionedByFanouts(raw: unknown): Shape["fanoutMentions"] {
  const mentions = { childRoles: new Set<string>(), joins: new Set<string>() };
  if (!isPlainObject(raw)) return mentions;
  for (const statuses of Object.values(raw)) {
    if (!isPlainObject(statuses)) continue;
    for (const edge of Object.values(statuses)) {
      if (!isPlainObject(edge) || edge.fanout === undefined) continue;
      if (typeof edge.role === "string") mentions.joins.add(edge.role);
      if (isPlainObject(edge.fanout) && typeof edge.fanout.role === "string") {
        mentions.childRoles.add(edge.fanout.role);
      }
    }
  }
  return mentions;
}

function checkRolesShape(
  raw: unknown,
  errors: string[],
  stepRoles: Map<string, StepRoleSpec>,
  maxVisits: Map<string, number>,
  joins: Set<string>,
): Map<string, SchemaMap | null> {
  const roles = new Map<string, SchemaMap | null>();
  if (raw === undefined) {
    errors.push('missing required field "roles"');
    return roles;
  }
  if (!isPlainObject(raw)) {
    errors.push('"roles" must be a mapping of role name to role');
    return roles;
  }
  if (Object.keys(raw).length === 0) errors.push('"roles" must declare at least one role');

  for (const [role, value] of Object.entries(raw)) {
    if (role.startsWith("$")) {
      errors.push(`role name "${role}" is reserved: role names may not start with "$"`);
      continue;
    }
    if (!NAME_PATTERN.test(role)) errors.push(`role name "${role}" is invalid: ${NAME_RULE}`);
    roles.set(role, checkRoleShape(role, value, errors));
    if (isPlainObject(value)) {
      const spec = checkStepRoleShape(role, value, errors);
      if (spec !== null) stepRoles.set(role, spec);
      const visits = checkMaxVisitsShape(role, value, errors);
      if (visits !== null) maxVisits.set(role, visits);
      if (checkJoinRoleShape(role, value, errors)) joins.add(role);
    }
  }
  return roles;
}

/** The role's frontmatter schema when the role is well formed enough to read it. */
function checkRoleShape(role: string, value: unknown, errors: string[]): SchemaMap | null {
  const where = `role "${role}"`;
  if (!isPlainObject(value)) {
    errors.push(`${where} must be a mapping (goal, procedure, output, frontmatter, …)`);
    return null;
  }
  for (const key of Object.keys(value)) {
    if (!ROLE_KEYS.includes(key)) {
      errors.push(unknownKey(`${where}: unknown key`, key, ROLE_KEYS));
    }
  }
  for (const key of ROLE_TEXT_KEYS) {
    if (value[key] !== undefined && typeof value[key] !== "string") {
      errors.push(`${where}: "${key}" must be a string`);
    }
  }
  const capabilities = value.capabilities;
  if (
    capabilities !== undefined &&
    !(Array.isArray(capabilities) && capabilities.every((c) => typeof c === "string"))
  ) {
    errors.push(`${where}: "capabilities" must be a list of strings`);
  }

  const frontmatter = value.frontmatter;
  if (frontmatter === undefined) {
    errors.push(`${where}: missing required field "frontmatter" (the JSON Schema of its output)`);
    return null;
  }
  if (!isPlainObject(frontmatter)) {
    errors.push(`${where}: "frontmatter" must be a JSON Schema mapping`);
    return null;
  }
  const before = errors.length;
  if (frontmatter.type !== undefined && frontmatter.type !== "object") {
    errors.push(
      `${where}: "frontmatter" must be an object schema (type: object), found type ${JSON.stringify(frontmatter.type)}`,
    );
  }
  if (frontmatter.properties !== undefined && !isPlainObject(frontmatter.properties)) {
    errors.push(`${where}: "frontmatter.properties" must be a mapping of field name to schema`);
  }
  if (
    frontmatter.required !== undefined &&
    !(
      Array.isArray(frontmatter.required) &&
      frontmatter.required.every((r) => typeof r === "string")
    )
  ) {
    errors.push(`${where}: "frontmatter.required" must be a list of field names`);
  }
  if (
    frontmatter.oneOf !== undefined &&
    !(
      Array.isArray(frontmatter.oneOf) &&
      frontmatter.oneOf.length > 0 &&
      frontmatter.oneOf.every(isPlainObject)
    )
  ) {
    errors.push(`${where}: "frontmatter.oneOf" must be a non-empty list of schema mappings`);
  }
  return errors.length === before ? frontmatter : null;
}

function checkGraphShape(
  raw: unknown,
  errors: string[],
): { graph: Map<string, string[]> | null; edges: Edge[] } {
  const edges: Edge[] = [];
  if (raw === undefined) {
    errors.push('missing required field "graph"');
    return { graph: null, edges };
  }
  if (!isPlainObject(raw)) {
    errors.push('"graph" must be a mapping of role name to its status edges');
    return { graph: null, edges };
  }
  const graph = new Map<string, string[]>();
  for (const [source, statuses] of Object.entries(raw)) {
    if (!isPlainObject(statuses)) {
      errors.push(`graph[${source}] must be a mapping of status to edge { role, prompt }`);
      continue;
    }
    graph.set(source, Object.keys(statuses));
    for (const [status, target] of Object.entries(statuses)) {
      const checked = checkEdgeShape(`graph[${source}][${status}]`, target, errors);
      if (checked !== null) edges.push({ source, status, target: checked });
    }
  }
  return { graph, edges };
}

function checkEdgeShape(where: string, value: unknown, errors: string[]): EdgeDefinition | null {
  if (!isPlainObject(value)) {
    errors.push(`${where} must be a mapping with "role" and "prompt"`);
    return null;
  }
  const before = errors.length;
  for (const key of Object.keys(value)) {
    if (!EDGE_KEYS.includes(key)) {
      errors.push(unknownKey(`${where}: unknown key`, key, EDGE_KEYS));
    }
  }
  for (const key of ["role", "prompt"]) {
    if (value[key] === undefined) errors.push(`${where}: missing required field "${key}"`);
    else if (typeof value[key] !== "string") errors.push(`${where}: "${key}" must be a string`);
  }
  if (value.location !== undefined && typeof value.location !== "string") {
    errors.push(`${where}: "location" must be a string`);
  }
  if (value.fanout !== undefined) checkFanoutShape(where, value.fanout, errors);
  return errors.length === before ? (value as unknown as EdgeDefinition) : null;
}
