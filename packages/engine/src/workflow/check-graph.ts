import { END, START, START_STATUSES, SUSPEND } from "@united-workforce/protocol";
import { nearestWord } from "@united-workforce/util";
import type { Edge, Shape } from "./check-shape.js";
import { type FanoutDefinition, JOIN_OUTPUT_FIELDS } from "./fanout.js";
import { fanoutTemplateFields } from "./fanout-rules.js";
import { INPUTS_FIELD, inputsFields, inputsVariableProblem } from "./inputs.js";
import {
  didYouMean,
  missingStatusKeys,
  START_STATUSES_REQUIRED,
  templateVariableNotFound,
  UNDERSCORE_STATUS,
  undeclaredStatusKeys,
  unknownTargetRole,
} from "./messages.js";
import type { RoleExits } from "./role-exits.js";
import { propertiesOf, type SchemaMap } from "./schema-shape.js";
import { findTemplateProblems, type TemplateProblem } from "./template-variables.js";

/** Each graph key is a declared role (or $START) and keys exactly the statuses it declares. */
export function checkGraphKeys(
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
      errors.push(
        `graph[${source}]: "${source}" is not a role declared under "roles"${didYouMean(source, shape.roles.keys())}`,
      );
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
    if (extra.length > 0) errors.push(undeclaredStatusKeys(source, extra, missing));
  }
  if (!graph.has(START)) errors.push(START_STATUSES_REQUIRED);
  // A role whose entry is there under a misspelt key is told so by that key's error alone.
  const misspelt = new Set(
    [...graph.keys()]
      .filter((key) => !shape.roles.has(key))
      .map((key) => nearestWord(key, shape.roles.keys())),
  );
  // A role run only as a fan-out's child needs no graph entry: its child workflow ends it.
  for (const role of shape.roles.keys()) {
    if (!graph.has(role) && !shape.fanoutMentions.childRoles.has(role) && !misspelt.has(role)) {
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

/** An edge's target exists and its templates read only fields its source's output carries. */
export function checkEdge(
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
    errors.push(unknownTargetRole(source, status, target.role, shape.roles.keys()));
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
          elsewhere.length > 0
            ? `${message} (declared only for status ${elsewhere.map((s) => `"${s}"`).join(", ")})`
            : problem.variable === BODY_VARIABLE
              ? `${message}: ${BODY_ADVICE}`
              : `${message}${didYouMean(problem.variable.split(".")[0] as string, Object.keys(fields))}`,
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
          startVariableNotFound(field, problem.variable, where, shape.inputs),
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
    case "filter":
      return `${where}: ${field} uses a Liquid filter, {{${problem.tag}}}, but uwf templates are mustache, which has no filters: write {{{${problem.variable}}}} for the value as it is, or a section to shape a list, e.g. {{#${problem.variable}}}{{.}}, {{/${problem.variable}}}`;
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

/** Upstream's name for the body of the answer before; uwf's templates read fields only. */
const BODY_VARIABLE = "_body";
const BODY_ADVICE =
  'uwf has no {{_body}}: a template reads only the fields of the frontmatter, so declare the text as a field (e.g. "summary: { type: string }" under its properties) and write {{{summary}}}';

/**
 * A `$START` edge reads only the inputs: a variable there is most likely meant to be one (as
 * upstream rendered its start prompts from the task's fields), so the message shows how.
 */
function startVariableNotFound(
  field: "prompt" | "location",
  variable: string,
  where: string,
  inputs: SchemaMap | null,
): string {
  const message = `${field} variable "${variable}" in ${where} not found: $START edges are rendered with no output fields`;
  if (variable === BODY_VARIABLE) return `${message}; ${BODY_ADVICE}`;
  if (variable === "task") {
    return `${message}: the thread's task reaches the agent by itself (as "## Task"), so leave it out of the prompt`;
  }
  const name = variable.split(".")[0] as string;
  const declared = Object.keys(propertiesOf(inputs) ?? {});
  if (declared.includes(name)) return `${message}: write {{{inputs.${variable}}}}`;
  const near = nearestWord(name, declared);
  if (near !== undefined) return `${message}: did you mean {{{inputs.${near}}}}?`;
  const how =
    inputs === null
      ? `declare it under "inputs:" (properties: { ${name}: { type: string } }), pass it with "thread start --input ${name}=…"`
      : `declare it under inputs.properties`;
  return `${message}: to give "${name}" when a thread starts, ${how} and write {{{inputs.${name}}}}`;
}

/** Other statuses of the role whose output does carry the variable's first field. */
function statusesDeclaring(exits: RoleExits, variable: string, except: string): string[] {
  const head = variable.split(".")[0] as string;
  return exits.statuses.filter(
    (s) => s !== except && Object.hasOwn(exits.outputs.get(s)?.properties ?? {}, head),
  );
}
