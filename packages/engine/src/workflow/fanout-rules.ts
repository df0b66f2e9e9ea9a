import { END, isPlainObject, START, SUSPEND } from "@united-workforce/protocol";
import { fanoutPath } from "../moderator/evaluate.js";
import type { Edge, Shape } from "./check-shape.js";
import { type FanoutDefinition, JOIN_FIELDS, JOIN_STATUSES } from "./fanout.js";
import { INPUTS_FIELD, inputsFields } from "./inputs.js";
import { didYouMean } from "./messages.js";
import type { RoleExits } from "./role-exits.js";
import { hasOwn, isArraySchema, propertiesOf, type SchemaMap, variantsOf } from "./schema-shape.js";

/** The rules of fan-out edges and join roles that need the whole workflow (see fanout.ts). */

/** What a fan-out edge's templates may read beside the output: the child's item and index. */
export interface FanoutTemplateFields {
  fields: SchemaMap;
  /** A clearer message for a missing `item…` variable, or null when it is about something else. */
  problem: (variable: string, field: "prompt" | "location", where: string) => string | null;
}

/** The fields `item` and `index` on a fan-out edge; null on any other edge. */
export function fanoutTemplateFields(
  fanout: FanoutDefinition | undefined,
  view: SchemaMap,
): FanoutTemplateFields | null {
  if (fanout === undefined) return null;
  const index = { type: "integer" };
  if (fanout.over === undefined) {
    return {
      fields: { item: { type: "null" }, index },
      problem: (variable, field, where) =>
        variable.split(".")[0] === "item"
          ? `${field} variable "${variable}" in ${where} not found: a fan-out without "over" runs one child, whose item is null`
          : null,
    };
  }
  const list = follow(view, fanoutPath(fanout.over));
  const item = isPlainObject(list) && isArraySchema(list) ? (list.items ?? true) : true;
  return {
    fields: { item, index },
    problem: (variable, field, where) =>
      variable.split(".")[0] === "item"
        ? `${field} variable "${variable}" in ${where} not found in the items of fanout.over ${JSON.stringify(fanout.over)} (declare the items' fields under "items.properties")`
        : null,
  };
}

/**
 * The schema at a dotted path of a template's fields: `undefined` when a name is not declared,
 * `true` when the schema leaves it open (nothing can be said).
 */
export function follow(fields: SchemaMap, path: string[]): unknown {
  let current: unknown = { properties: fields };
  for (const segment of path) {
    if (!isPlainObject(current)) return true;
    const declared = declaredProperties(current);
    if (declared === null) return isArraySchema(current) ? undefined : true;
    if (!hasOwn(declared, segment)) {
      const extra = current.additionalProperties;
      return extra === true || isPlainObject(extra) ? true : undefined;
    }
    current = declared[segment];
  }
  return current;
}

function declaredProperties(schema: SchemaMap): SchemaMap | null {
  const own = propertiesOf(schema);
  const branches = variantsOf(schema)
    .map(propertiesOf)
    .filter((p) => p !== null);
  if (own === null && branches.length === 0) return null;
  return Object.assign({}, ...branches, own);
}

/**
 * Fan-out edges and join roles: every fan-out targets a join and names a child; `over` names a
 * list; a join is reached by fan-outs only, declares done (and partial where a child may fail)
 * and requires nothing uwf does not write.
 */
export function checkFanoutSemantics(
  shape: Shape,
  exits: Map<string, RoleExits | null>,
  errors: string[],
  warnings: string[],
): void {
  const intoJoin = new Map<string, Edge[]>();
  for (const edge of shape.edges) {
    const { source, status, target } = edge;
    if (source !== START && !shape.roles.has(source)) continue;
    const where = `graph[${source}][${status}]`;
    const fanout = target.fanout;
    if (fanout === undefined) {
      if (shape.joins.has(target.role)) {
        errors.push(
          `${where}: role "${target.role}" is a join ("join: true"), which only a fan-out edge may reach: uwf writes its step from the children's results (add "fanout:" to this edge, or target another role)`,
        );
      }
      continue;
    }
    if (target.role === END || target.role === SUSPEND || target.role === START) {
      errors.push(
        `${where}: a fan-out edge's "role" is its join, the role that collects the children's results; ${target.role} cannot be one: target a role with "join: true"`,
      );
    } else if (shape.joins.has(target.role)) {
      intoJoin.set(target.role, [...(intoJoin.get(target.role) ?? []), edge]);
    } else if (shape.roles.has(target.role)) {
      errors.push(
        `${where}: a fan-out edge's "role" is its join, the role that collects the children's results, but role "${target.role}" has no "join: true"`,
      );
    }
    if (fanout.role !== undefined) {
      if (!shape.roles.has(fanout.role)) {
        errors.push(
          `${where}: fanout.role "${fanout.role}" is not a role declared under "roles"${didYouMean(fanout.role, shape.roles.keys())}`,
        );
      } else if (shape.joins.has(fanout.role)) {
        errors.push(
          `${where}: fanout.role "${fanout.role}" is a join role; a child runs an ordinary role (an agent, human or script role)`,
        );
      }
    }
    if (fanout.over !== undefined) checkOver(edge, fanout.over, shape, exits, errors, warnings);
  }
  for (const join of shape.joins) {
    const incoming = intoJoin.get(join) ?? [];
    // A malformed fan-out into it is reported already, and is no reason to say none leads here.
    if (incoming.length === 0 && shape.fanoutMentions.joins.has(join)) continue;
    checkJoinRole(join, exits.get(join) ?? null, incoming, errors, warnings);
    const frontmatter = shape.roles.get(join);
    if (frontmatter) errors.push(...joinFieldTypeProblems(join, frontmatter));
    const refused = frontmatter ? joinFieldsRefused(frontmatter) : [];
    if (refused.length > 0) {
      errors.push(
        `role "${join}" is a join whose frontmatter sets additionalProperties: false without declaring ${refused.map((f) => `"${f}"`).join(", ")}, which uwf writes into its output: declare them under "properties"`,
      );
    }
  }
}

/** `over` must name a list: a field of the source's output for that status, or an input. */
function checkOver(
  edge: Edge,
  over: string,
  shape: Shape,
  exits: Map<string, RoleExits | null>,
  errors: string[],
  warnings: string[],
): void {
  const { source, status } = edge;
  const where = `graph[${source}][${status}]`;
  const path = fanoutPath(over);
  const named = path.join(".");
  const aboutInputs = path[0] === INPUTS_FIELD;
  const inputs = inputsFields(shape.inputs, shape.inputsDeclared);
  let view: SchemaMap;
  if (source === START) {
    if (!aboutInputs) {
      errors.push(
        `${where}: fanout.over ${JSON.stringify(over)}: a $START edge may fan out only over the thread's inputs ("over: inputs.<list>") or without "over" (one child); the thread has no output yet`,
      );
      return;
    }
    view = inputs;
  } else {
    const output = exits.get(source)?.outputs.get(status);
    if (output === undefined) return;
    view = { ...output.properties, ...inputs };
    for (const shadowed of ["item", "index"]) {
      if (hasOwn(output.properties, shadowed)) {
        warnings.push(
          `${where}: role "${source}" output field "${shadowed}" is hidden in this fan-out's prompt and location, where {{{${shadowed}}}} is the child's ${shadowed}`,
        );
      }
    }
  }
  const list = follow(view, path);
  if (list === undefined) {
    if (aboutInputs) {
      errors.push(
        shape.inputsDeclared
          ? `${where}: fanout.over ${JSON.stringify(over)} names "${named}", which the workflow's inputs do not declare`
          : `${where}: fanout.over ${JSON.stringify(over)} names "${named}", but the workflow declares no inputs`,
      );
    } else {
      errors.push(
        `${where}: fanout.over ${JSON.stringify(over)} names "${named}", which role "${source}" frontmatter does not declare for status "${status}" (declare it as a list: { type: array, items: … })`,
      );
    }
    return;
  }
  if (isPlainObject(list) && !isArraySchema(list)) {
    const type = list.type === undefined ? "without a type" : `as ${JSON.stringify(list.type)}`;
    const owner = aboutInputs ? "the workflow's inputs" : `role "${source}" frontmatter`;
    errors.push(
      `${where}: fanout.over ${JSON.stringify(over)} must name a list, but ${owner} declares "${named}" ${type} (declare it with type: array)`,
    );
  }
}

function checkJoinRole(
  join: string,
  exits: RoleExits | null,
  incoming: Edge[],
  errors: string[],
  warnings: string[],
): void {
  const where = `role "${join}"`;
  if (incoming.length === 0) {
    errors.push(
      `${where} has "join: true" but no fan-out edge leads to it: a join collects the results of a fan-out (give an edge to it a "fanout:", or remove "join")`,
    );
  }
  if (exits === null) return;
  const allowed = JOIN_STATUSES as readonly string[];
  const extra = exits.statuses.filter((s) => !allowed.includes(s));
  if (extra.length > 0) {
    errors.push(
      `${where} is a join: its "$status" may only be done (every child completed) or partial (some failed); remove: ${extra.join(", ")}`,
    );
  }
  if (!exits.statuses.includes("done")) {
    errors.push(`${where} is a join: its "$status" must declare "done" (every child completed)`);
  }
  const lenient = incoming.filter((e) => {
    const failure = e.target.fanout?.failure;
    return failure === "any" || failure === "continue";
  });
  if (lenient.length > 0 && !exits.statuses.includes("partial")) {
    const edges = lenient.map(
      (e) => `graph[${e.source}][${e.status}] (failure: ${e.target.fanout?.failure})`,
    );
    errors.push(
      `${where} is the join of ${edges.join(", ")}, where children may fail and the join ends "partial": declare "partial" in its "$status" and add graph.${join}.partial`,
    );
  }
  if (incoming.length > 0 && lenient.length === 0 && exits.statuses.includes("partial")) {
    warnings.push(
      `${where} declares "partial", which never happens here: every fan-out into it has failure "all", so the join runs only when every child completed; remove "partial" from its "$status" (or set failure any|continue on a fan-out into it)`,
    );
  }
  for (const [status, output] of exits.outputs) {
    const foreign = output.required.filter((f) => !JOIN_FIELDS.includes(f));
    if (foreign.length > 0) {
      errors.push(
        `${where} is a join: its output holds only ${JOIN_FIELDS.join(", ")}, but its frontmatter requires ${foreign.map((f) => `"${f}"`).join(", ")} for status "${status}", which uwf never writes`,
      );
    }
  }
}

/** The JSON types of what uwf writes into a join's output, for the frontmatter's declarations. */
const JOIN_FIELD_TYPES: Record<string, string[]> = {
  results: ["array"],
  completed: ["integer", "number"],
  failed: ["integer", "number"],
};

/** Join fields the frontmatter declares with a type uwf never writes there. */
export function joinFieldTypeProblems(join: string, frontmatter: SchemaMap): string[] {
  const declared = propertiesOf(frontmatter) ?? {};
  const problems: string[] = [];
  for (const [field, types] of Object.entries(JOIN_FIELD_TYPES)) {
    const schema = declared[field];
    if (!isPlainObject(schema) || schema.type === undefined) continue;
    const written = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!written.some((t) => types.includes(t as string))) {
      problems.push(
        `role "${join}" is a join: uwf writes "${field}" as ${types[0] === "array" ? "a list (type: array)" : "a whole number (type: integer)"}, but its frontmatter declares it as ${JSON.stringify(schema.type)}`,
      );
    }
  }
  return problems;
}

/** The fields uwf writes that a join's frontmatter refuses with `additionalProperties: false`. */
function joinFieldsRefused(frontmatter: SchemaMap): string[] {
  if (frontmatter.additionalProperties !== false) return [];
  const declared = propertiesOf(frontmatter) ?? {};
  return JOIN_FIELDS.filter((f) => !hasOwn(declared, f));
}
