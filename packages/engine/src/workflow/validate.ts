import { basename, dirname, extname } from "node:path";
import {
  type EdgeTarget,
  END,
  isPlainObject,
  NAME_PATTERN,
  START,
  START_STATUSES,
  SUSPEND,
} from "@united-workforce/protocol";
import {
  checkFanoutShape,
  checkJoinRoleShape,
  type FanoutDefinition,
  JOIN_KEY,
  JOIN_OUTPUT_FIELDS,
} from "./fanout.js";
import type { FanoutWorkflow } from "./fanout-resolve.js";
import { checkFanoutSemantics, fanoutTemplateFields } from "./fanout-rules.js";
import {
  checkMaxStepsShape,
  checkMaxVisitsShape,
  GUARD_ROLE_KEYS,
  guardWarnings,
} from "./guards.js";
import {
  checkInputsNotShadowed,
  checkInputsShape,
  INPUTS_FIELD,
  inputsFields,
  inputsVariableProblem,
} from "./inputs.js";
import {
  cannotReachEnd,
  missingStatusKeys,
  nameMismatch,
  START_STATUSES_REQUIRED,
  templateVariableNotFound,
  UNDERSCORE_STATUS,
  undeclaredStatusKeys,
  unknownTargetRole,
  unreachableRole,
} from "./messages.js";
import { type RoleExits, readRoleExits } from "./role-exits.js";
import { schemaKeywordWarnings } from "./schema-lint.js";
import type { SchemaMap } from "./schema-shape.js";
import {
  checkStepRoleSemantics,
  checkStepRoleShape,
  STEP_ROLE_KEYS,
  type StepRoleSpec,
} from "./step-roles.js";
import { findTemplateProblems, type TemplateProblem } from "./template-variables.js";

/** A role as written in YAML: its frontmatter is the JSON Schema itself, not yet a hash. */
export interface RoleDefinition {
  description?: string;
  goal?: string;
  capabilities?: string[];
  procedure?: string;
  output?: string;
  frontmatter: SchemaMap;
  /** `human`: the role is answered with `uwf thread answer` (see step-roles.ts). */
  agent?: "human";
  /** A command run instead of an agent: an argv, or one string when `shell` is true. */
  run?: string[] | string;
  shell?: boolean;
  exitStatus?: Record<string, string>;
  timeoutSeconds?: number;
  /** Guard: the thread suspends before this role's step once it ran this many times. */
  maxVisits?: number;
  /** The join of a fan-out: its step is written by uwf from the children's results. */
  join?: true;
}

/** An edge as written in YAML: a fan-out names its child by role or workflow, not yet a hash. */
export type EdgeDefinition = Omit<EdgeTarget, "fanout"> & { fanout?: FanoutDefinition };
export type GraphDefinition = Record<string, Record<string, EdgeDefinition>>;

/** A workflow as written in YAML (after includes), once it has passed validation. */
export interface WorkflowDefinition {
  name: string;
  description?: string;
  roles: Record<string, RoleDefinition>;
  graph: GraphDefinition;
  /** JSON Schema of the object a thread is started with (`thread start --input`). */
  inputs?: SchemaMap;
  /** Guard: the thread suspends before a step once its chain holds this many steps. */
  maxSteps?: number;
  /** Every thread runs in its own git worktree on its own branch. */
  worktree?: boolean;
  /**
   * Not YAML: the child workflows of `fanout.workflow` edges, by the reference written, once
   * `loadAndValidate` has resolved them (materialising stores them and pins their hashes).
   */
  fanoutWorkflows?: Map<string, FanoutWorkflow>;
}

export interface WorkflowValidation {
  valid: boolean;
  /** The declared name when it is a string, valid or not. */
  name: string | null;
  errors: string[];
  warnings: string[];
  /** The definition, typed, only when valid. */
  definition: WorkflowDefinition | null;
  /**
   * The JSON Schemas these checks already found wrong (a role's frontmatter, the inputs): their
   * errors are given, so compiling them would only say the same again in ajv's words.
   */
  faultySchemas: { roles: string[]; inputs: boolean };
}

export interface ValidateOptions {
  /** The file the definition came from; its name must imply the workflow's name. */
  fileName?: string;
}

const TOP_LEVEL_KEYS = ["name", "description", "roles", "graph", "inputs", "maxSteps", "worktree"];
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
 * Check a parsed workflow definition and collect every problem: shape first (fields, types,
 * unknown keys), then meaning (statuses, targets, template variables, reachability, the file
 * name). Never throws on bad input.
 */
export function validateWorkflow(
  definition: unknown,
  options: ValidateOptions = {},
): WorkflowValidation {
  const shapeErrors: string[] = [];
  const shape = checkShape(definition, shapeErrors);
  const semanticErrors: string[] = [];
  const warnings: string[] = [];
  const faultySchemas = { roles: [] as string[], inputs: false };
  if (shape !== null) {
    const exits = checkSemantics(shape, options, semanticErrors, warnings);
    faultySchemas.roles = [...exits].filter(([, role]) => role === null).map(([name]) => name);
    faultySchemas.inputs = shape.inputsDeclared && shape.inputs === null;
    // ajv ignores a keyword it does not know: a misspelt `required` would go unnoticed.
    for (const [role, frontmatter] of shape.roles) {
      if (frontmatter !== null)
        warnings.push(...schemaKeywordWarnings(frontmatter, `role "${role}" frontmatter`));
    }
    if (shape.inputs !== null) warnings.push(...schemaKeywordWarnings(shape.inputs, '"inputs"'));
  }

  const errors = unique([...shapeErrors, ...semanticErrors]);
  const valid = errors.length === 0;
  return {
    valid,
    name: shape?.name ?? null,
    errors,
    warnings: unique(warnings),
    definition: valid ? (definition as WorkflowDefinition) : null,
    faultySchemas,
  };
}

function checkShape(raw: unknown, errors: string[]): Shape | null {
  if (!isPlainObject(raw)) {
    errors.push("a workflow must be a mapping with name, roles and graph");
    return null;
  }
  for (const key of Object.keys(raw)) {
    if (!TOP_LEVEL_KEYS.includes(key)) {
      errors.push(`unknown top-level key "${key}" (expected: ${TOP_LEVEL_KEYS.join(", ")})`);
    }
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
      errors.push(`${where}: unknown key "${key}" (expected: ${ROLE_KEYS.join(", ")})`);
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
      errors.push(`${where}: unknown key "${key}" (expected: ${EDGE_KEYS.join(", ")})`);
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

function checkSemantics(
  shape: Shape,
  options: ValidateOptions,
  errors: string[],
  warnings: string[],
): Map<string, RoleExits | null> {
  const exits = new Map<string, RoleExits | null>();
  for (const [role, frontmatter] of shape.roles) {
    exits.set(role, frontmatter === null ? null : readRoleExits(role, frontmatter, errors));
  }
  checkInputsNotShadowed(shape.inputs, exits, errors);
  guardWarnings(shape.maxSteps, shape.maxVisits, warnings);
  for (const [role, spec] of shape.stepRoles) {
    checkStepRoleSemantics(role, spec, exits.get(role) ?? null, errors);
  }

  if (shape.graph !== null) {
    checkGraphKeys(shape, exits, errors);
    for (const edge of shape.edges) checkEdge(edge, shape, exits, errors, warnings);
    checkFanoutSemantics(shape, exits, errors, warnings);
    if (shape.graphWellFormed && shape.graph.has(START)) {
      checkReachability(shape, errors, warnings);
    }
  }
  if (options.fileName !== undefined && shape.name !== null) {
    const mismatch = checkFileName(options.fileName, shape.name);
    if (mismatch !== null) errors.push(mismatch);
  }
  return exits;
}

function checkGraphKeys(
  shape: Shape,
  exits: Map<string, RoleExits | null>,
  errors: string[],
): void {
  const graph = shape.graph as Map<string, string[]>;
  for (const [source, keys] of graph) {
    if (keys.includes("_")) errors.push(UNDERSCORE_STATUS);
    const statuses = keys.filter((k) => k !== "_");

    if (source === START) {
      checkStartKeys(statuses, errors);
      continue;
    }
    if (source === END || source === SUSPEND) {
      errors.push(`graph key "${source}" is not allowed: ${source} is a target only`);
      continue;
    }
    if (!shape.roles.has(source)) {
      errors.push(`graph[${source}]: "${source}" is not a role declared under "roles"`);
      continue;
    }
    if (statuses.includes(SUSPEND)) {
      errors.push(
        `graph[${source}][${SUSPEND}]: "${SUSPEND}" is a target, not a status key (any agent may answer "$status: ${SUSPEND}" without an edge)`,
      );
    }
    const declared = exits.get(source);
    if (declared === null || declared === undefined) continue;
    const keyed = statuses.filter((s) => s !== SUSPEND);
    const missing = declared.statuses.filter((s) => !keyed.includes(s));
    const extra = keyed.filter((s) => !declared.statuses.includes(s));
    if (missing.length > 0) errors.push(missingStatusKeys(source, missing));
    if (extra.length > 0) errors.push(undeclaredStatusKeys(source, extra));
  }
  if (!graph.has(START)) errors.push(START_STATUSES_REQUIRED);
  // A role run only as a fan-out's child needs no graph entry: its child workflow ends it.
  for (const role of shape.roles.keys()) {
    if (!graph.has(role) && !shape.fanoutMentions.childRoles.has(role)) {
      errors.push(`role "${role}" has no graph entry: add graph.${role} with one edge per status`);
    }
  }
}

function checkStartKeys(statuses: string[], errors: string[]): void {
  if (!START_STATUSES.every((s) => statuses.includes(s))) errors.push(START_STATUSES_REQUIRED);
  const extra = statuses.filter((s) => !(START_STATUSES as readonly string[]).includes(s));
  if (extra.length > 0) {
    errors.push(
      `$START may only have the statuses "new" and "resume"; remove: ${extra.join(", ")}`,
    );
  }
}

function checkEdge(
  edge: Edge,
  shape: Shape,
  exits: Map<string, RoleExits | null>,
  errors: string[],
  warnings: string[],
): void {
  const { source, status, target } = edge;
  const where = `graph[${source}][${status}]`;
  const fromStart = source === START;
  if (!fromStart && !shape.roles.has(source)) return;

  if (target.role === START) {
    errors.push(`edge ${source}→${status}: "${START}" cannot be a target`);
  } else if (target.role === END || target.role === SUSPEND) {
    if (fromStart)
      errors.push(`edge ${source}→${status}: $START edges must target a role, not ${target.role}`);
    if (target.location !== undefined) {
      warnings.push(`${where}: "location" is ignored on an edge to ${target.role}`);
    }
  } else if (!shape.roles.has(target.role)) {
    errors.push(unknownTargetRole(source, status, target.role));
  }

  if (target.prompt.trim() === "") errors.push(`${where}: "prompt" is empty`);
  if (status === "_") return;

  const templates: ["prompt" | "location", string][] = [["prompt", target.prompt]];
  if (target.location !== undefined) templates.push(["location", target.location]);
  for (const [field, template] of templates) {
    if (fromStart) {
      checkStartTemplate(where, field, template, target.fanout, shape, errors);
      continue;
    }
    const declared = exits.get(source);
    const output = declared?.outputs.get(status);
    if (declared === null || declared === undefined || output === undefined) continue;
    const view = {
      ...(shape.joins.has(source) ? JOIN_OUTPUT_FIELDS : {}),
      ...output.properties,
      ...inputsFields(shape.inputs, shape.inputsDeclared),
    };
    const item = fanoutTemplateFields(target.fanout, view);
    const fields = { ...view, ...item?.fields };
    for (const problem of findTemplateProblems(template, fields)) {
      if (problem.kind !== "missing") {
        errors.push(templateFormProblem(problem, field, where));
      } else {
        // An output field named `inputs` (in a workflow without inputs) is an ordinary field.
        const aboutInputs = Object.hasOwn(output.properties, INPUTS_FIELD)
          ? null
          : inputsVariableProblem(problem.variable, field, where, shape.inputs);
        if (aboutInputs !== null) {
          errors.push(aboutInputs);
          continue;
        }
        const aboutItem = item?.problem(problem.variable, field, where) ?? null;
        if (aboutItem !== null) {
          errors.push(aboutItem);
          continue;
        }
        const message = templateVariableNotFound(field, problem.variable, source, status);
        const elsewhere = statusesDeclaring(declared, problem.variable, status);
        errors.push(
          elsewhere.length === 0
            ? message
            : `${message} (declared only for status ${elsewhere.map((s) => `"${s}"`).join(", ")})`,
        );
      }
    }
  }
}

/** `$START` edges are rendered from `{ $status: "new" | "resume" }` and the thread's inputs. */
function checkStartTemplate(
  where: string,
  field: "prompt" | "location",
  template: string,
  fanout: FanoutDefinition | undefined,
  shape: Shape,
  errors: string[],
): void {
  const view = inputsFields(shape.inputs, shape.inputsDeclared);
  const item = fanoutTemplateFields(fanout, view);
  const fields = { ...view, ...item?.fields };
  for (const problem of findTemplateProblems(template, fields)) {
    if (problem.kind !== "missing") {
      errors.push(templateFormProblem(problem, field, where));
    } else {
      errors.push(
        inputsVariableProblem(problem.variable, field, where, shape.inputs) ??
          item?.problem(problem.variable, field, where) ??
          `${field} variable "${problem.variable}" in ${where} not found: $START edges are rendered with no output fields`,
      );
    }
  }
}

/** What is wrong with a template's form, whatever fields it reads. */
function templateFormProblem(
  problem: Exclude<TemplateProblem, { kind: "missing" }>,
  field: "prompt" | "location",
  where: string,
): string {
  switch (problem.kind) {
    case "syntax":
      return `${where}: ${field} is not a valid mustache template: ${problem.message}`;
    case "partial":
      return `${where}: ${field} uses the partial "{{> ${problem.name}}}"; partials are not supported`;
    case "object":
      return problem.variable === "."
        ? `${where}: ${field} reads {{.}} where the value is an object, which renders as "[object Object]": name a field instead, e.g. {{{summary}}}`
        : `${where}: ${field} reads {{{${problem.variable}}}}, an object (or a list of objects), which renders as "[object Object]": read its fields, e.g. {{#${problem.variable}}}{{{name}}}{{/${problem.variable}}}`;
  }
}

/** Other statuses of the role whose output does carry the variable's first field. */
function statusesDeclaring(exits: RoleExits, variable: string, except: string): string[] {
  const head = variable.split(".")[0] as string;
  return exits.statuses.filter(
    (s) => s !== except && Object.hasOwn(exits.outputs.get(s)?.properties ?? {}, head),
  );
}

function checkReachability(shape: Shape, errors: string[], warnings: string[]): void {
  const next = new Map<string, Set<string>>();
  const endsDirectly = new Set<string>();
  const link = (source: string, role: string) => {
    if (!next.has(source)) next.set(source, new Set());
    next.get(source)?.add(role);
  };
  for (const { source, target } of shape.edges) {
    if (target.role === END) endsDirectly.add(source);
    // A fan-out's child role runs (in its child thread) whenever the fan-out does.
    const child = target.fanout?.role;
    if (child !== undefined && shape.roles.has(child)) link(source, child);
    if (!shape.roles.has(target.role)) continue;
    link(source, target.role);
  }

  const reached = new Set<string>();
  const queue = [...(next.get(START) ?? [])];
  while (queue.length > 0) {
    const role = queue.shift() as string;
    if (reached.has(role)) continue;
    reached.add(role);
    queue.push(...(next.get(role) ?? []));
  }

  // Roles that can reach $END: those with an $END edge, then whoever reaches one of them.
  const ending = new Set(endsDirectly);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [source, targets] of next) {
      if (!ending.has(source) && [...targets].some((t) => ending.has(t))) {
        ending.add(source);
        grew = true;
      }
    }
  }

  for (const role of shape.roles.keys()) {
    if (!reached.has(role)) errors.push(unreachableRole(role));
    // A role without a graph entry is already an error; it needs no warning on top.
    else if (!ending.has(role) && shape.graph?.has(role)) warnings.push(cannotReachEnd(role));
  }
}

/** `x.yaml` implies the name `x`; `x/index.yaml` implies the folder's name. */
export function impliedWorkflowName(fileName: string): {
  implied: string;
  shown: string;
  isIndex: boolean;
} {
  const file = basename(fileName);
  const extension = extname(file);
  if (/^index\.(ya?ml|json)$/i.test(file)) {
    const folder = basename(dirname(fileName));
    return { implied: folder, shown: `${folder}/${file}`, isIndex: true };
  }
  return { implied: file.slice(0, file.length - extension.length), shown: file, isIndex: false };
}

function checkFileName(fileName: string, declared: string): string | null {
  const { implied, shown, isIndex } = impliedWorkflowName(fileName);
  if (implied === declared) return null;
  const rename = isIndex
    ? { what: "folder" as const, to: declared }
    : { what: "file" as const, to: `${declared}${extname(fileName)}` };
  return nameMismatch(shown, implied, declared, rename);
}

function unique(messages: string[]): string[] {
  return [...new Set(messages)];
}
