import { isPlainObject } from "@united-workforce/protocol";
import mustache from "mustache";
import {
  hasOwn,
  isArraySchema,
  isFieldless,
  propertiesOf,
  type SchemaMap,
  variantsOf,
} from "./schema-shape.js";

/** What a template may read at one level of mustache's context stack. */
type Scope =
  /** Declared fields only (the role output itself, or a nested object with `properties`). */
  | { kind: "fields"; properties: SchemaMap }
  /** A value with no named fields (a string, a number, an array element of scalar type). */
  | { kind: "scalar" }
  /** A value whose fields the schema leaves open; anything may be read from it. */
  | { kind: "open"; object?: boolean };

export type TemplateProblem =
  | { kind: "syntax"; message: string }
  | { kind: "partial"; name: string }
  | { kind: "missing"; variable: string }
  /** `{{.}}` or `{{{name}}}` where the value is an object: it renders as "[object Object]". */
  | { kind: "object"; variable: string }
  /** `{{ name | filter }}`, Liquid's syntax (upstream's templates): mustache has no filters. */
  | { kind: "filter"; variable: string; tag: string };

/**
 * Every variable a mustache template reads that the given output fields do not provide.
 * The template is parsed (never scanned with a regex), sections push their value as a new
 * context the way mustache does at render time, and dotted names are followed through nested
 * `properties`. The top level is strict: extraction keeps only schema fields, so an undeclared
 * field is never there to render.
 */
export function findTemplateProblems(template: string, fields: SchemaMap): TemplateProblem[] {
  let tokens: unknown[];
  try {
    tokens = mustache.parse(template);
  } catch (error) {
    return [{ kind: "syntax", message: error instanceof Error ? error.message : String(error) }];
  }
  const problems: TemplateProblem[] = [];
  walk(tokens, [{ kind: "fields", properties: fields }], problems);
  return problems;
}

function walk(tokens: unknown[], stack: Scope[], problems: TemplateProblem[]): void {
  for (const token of tokens) {
    if (!Array.isArray(token)) continue;
    const [type, written, , , children] = token as [string, string, number, number, unknown];
    const name = liquidFilterVariable(written, type, problems);
    switch (type) {
      case "name":
      case "&": {
        const scope = stack.at(-1);
        const found = lookup(name, stack);
        if (found === undefined) report(problems, name);
        else if (name === "." ? isObjectScope(scope) : rendersAsObject(found)) {
          if (!problems.some((p) => p.kind === "object" && p.variable === name))
            problems.push({ kind: "object", variable: name });
        }
        break;
      }
      case "#": {
        const found = lookup(name, stack);
        if (found === undefined) report(problems, name);
        // A missing section name is reported once; its body is read as open, not re-reported.
        const scope = found === undefined ? { kind: "open" as const } : sectionScope(found);
        if (Array.isArray(children)) walk(children, [...stack, scope], problems);
        break;
      }
      case "^": {
        if (lookup(name, stack) === undefined) report(problems, name);
        if (Array.isArray(children)) walk(children, stack, problems);
        break;
      }
      case ">":
        problems.push({ kind: "partial", name });
        break;
      default:
        break;
    }
  }
}

/**
 * The variable a tag reads: for `{{ name | filter }}` the name, after reporting the filter (the
 * variable is checked too, so a wrong name is said at once).
 */
function liquidFilterVariable(written: string, type: string, problems: TemplateProblem[]): string {
  const bar = written.indexOf("|");
  if (bar === -1 || !["name", "&", "#", "^"].includes(type)) return written;
  const variable = written.slice(0, bar).trim();
  problems.push({ kind: "filter", variable, tag: written });
  return variable;
}

function report(problems: TemplateProblem[], variable: string): void {
  if (!problems.some((p) => p.kind === "missing" && p.variable === variable)) {
    problems.push({ kind: "missing", variable });
  }
}

/** The schema a name resolves to, like mustache: innermost context first, full path must hit. */
function lookup(name: string, stack: Scope[]): unknown | undefined {
  if (name === ".") return true;
  const path = name.split(".");
  for (let i = stack.length - 1; i >= 0; i--) {
    const scope = stack[i] as Scope;
    if (scope.kind === "open") return true;
    if (scope.kind === "scalar") continue;
    const found = follow({ properties: scope.properties }, path);
    if (found !== undefined) return found;
  }
  return undefined;
}

function follow(schema: unknown, path: string[]): unknown | undefined {
  let current: unknown = schema;
  for (const segment of path) {
    const next = child(current, segment);
    if (next === undefined) return undefined;
    current = next;
  }
  return current;
}

/** The schema of field `key` of a value described by `schema`; `true` when unknowable. */
function child(schema: unknown, key: string): unknown | undefined {
  if (!isPlainObject(schema)) return true;
  if (isArraySchema(schema)) {
    if (/^\d+$/.test(key)) return schema.items ?? true;
    return key === "length" ? { type: "integer" } : undefined;
  }
  const declared = declaredProperties(schema);
  if (declared !== null) {
    if (hasOwn(declared, key)) return declared[key] ?? true;
    return isOpen(schema) ? true : undefined;
  }
  if (isFieldless(schema)) return undefined;
  return true;
}

/** Properties declared directly or in any oneOf/anyOf/allOf branch, or null if none are. */
function declaredProperties(schema: SchemaMap): SchemaMap | null {
  const own = propertiesOf(schema);
  const branches = variantsOf(schema)
    .map(propertiesOf)
    .filter((p) => p !== null);
  if (own === null && branches.length === 0) return null;
  return Object.assign({}, ...branches, own);
}

/** Nested objects only accept undeclared fields when the schema explicitly says so. */
function isOpen(schema: SchemaMap): boolean {
  const extra = schema.additionalProperties;
  return extra === true || isPlainObject(extra) || isPlainObject(schema.patternProperties);
}

function sectionScope(schema: unknown): Scope {
  if (!isPlainObject(schema)) return { kind: "open" };
  if (isArraySchema(schema)) return elementScope(schema.items);
  return valueScope(schema);
}

function elementScope(items: unknown): Scope {
  if (!isPlainObject(items)) return { kind: "open" };
  return valueScope(items);
}

function valueScope(schema: SchemaMap): Scope {
  const declared = declaredProperties(schema);
  if (declared !== null && !isOpen(schema)) return { kind: "fields", properties: declared };
  if (isFieldless(schema)) return { kind: "scalar" };
  return { kind: "open", object: isObjectSchema(schema) };
}

function isObjectScope(scope: Scope | undefined): boolean {
  return scope?.kind === "fields" || (scope?.kind === "open" && scope.object === true);
}

/** An object, or a list of objects: mustache prints either as "[object Object]". */
function rendersAsObject(schema: unknown): boolean {
  if (!isPlainObject(schema)) return false;
  if (isArraySchema(schema)) return isPlainObject(schema.items) && isObjectSchema(schema.items);
  return isObjectSchema(schema);
}

/** A schema whose value is surely an object: `type: object`, or properties with no type. */
function isObjectSchema(schema: SchemaMap): boolean {
  if (schema.type === "object") return true;
  return schema.type === undefined && declaredProperties(schema) !== null && !isFieldless(schema);
}
