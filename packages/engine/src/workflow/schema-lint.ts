import { isPlainObject } from "@united-workforce/protocol";
import {
  DIALECT_URIS,
  dialectsApplying,
  knownFormatNames,
  type SchemaDialect,
  schemaDialect,
} from "@united-workforce/store";
import { nearestWord } from "@united-workforce/util";
import type { SchemaMap } from "./schema-shape.js";

/**
 * Every keyword of draft-07, 2019-09 and 2020-12. Order matters only for suggestions: when two
 * keywords are equally near a misspelling, the earlier one is suggested.
 */
const KEYWORDS = [
  // Core
  "$schema",
  "$id",
  "$defs",
  "$ref",
  "$comment",
  "definitions",
  "$anchor",
  "$dynamicRef",
  "$dynamicAnchor",
  "$recursiveRef",
  "$recursiveAnchor",
  "$vocabulary",
  // Applicators
  "properties",
  "patternProperties",
  "additionalProperties",
  "propertyNames",
  "unevaluatedProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "contains",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "dependentSchemas",
  "dependencies",
  // Validation
  "type",
  "enum",
  "const",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxContains",
  "minContains",
  "maxProperties",
  "minProperties",
  "required",
  "dependentRequired",
  // Format, content and meta-data
  "format",
  "contentEncoding",
  "contentMediaType",
  "contentSchema",
  "title",
  "description",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "examples",
  // Not standard, but ajv 8 applies it in every dialect: "ajv ignores it" would be untrue.
  "nullable",
];

const KNOWN = new Set(KEYWORDS);

/** What 2020-12 has instead of a keyword it dropped. */
const REPLACED_IN_2020_12: Record<string, string> = {
  additionalItems: 'in 2020-12, "items" next to "prefixItems" does its job',
};

/** Keywords whose value is one schema (`items` also comes as a list, below). */
const SCHEMA_VALUED = new Set([
  "items",
  "additionalItems",
  "unevaluatedItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "contentSchema",
]);

const SCHEMA_LISTS = new Set(["items", "prefixItems", "allOf", "anyOf", "oneOf"]);

/** Keywords whose value maps names of the author's choosing to schemas. */
const SCHEMA_MAPS = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
  "dependencies",
]);

interface Pending {
  schema: unknown;
  path: string;
}

/**
 * One warning per keyword ajv would silently ignore in `schema`, in document order. ajv runs
 * with `strict: false`, so `requird: [title]` compiles and leaves `title` optional; this is the
 * only place such a typo is caught. `where` opens each message (`role "r" frontmatter`).
 */
export function schemaKeywordWarnings(schema: unknown, where: string): string[] {
  const warnings: string[] = [];
  const dialect = isPlainObject(schema) ? schemaDialect(schema) : "draft-07";
  // YAML aliases can share or even nest a node within itself; each node is read once.
  const seen = new Set<SchemaMap>();
  // A stack, not recursion: a deeply nested schema must not overflow the call stack.
  const pending: Pending[] = [{ schema, path: "" }];
  try {
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const { schema: node, path } = next;
      if (!isPlainObject(node) || seen.has(node)) continue;
      seen.add(node);
      for (const keyword of Object.keys(node)) {
        if (!KNOWN.has(keyword)) {
          if (!keyword.startsWith("x-")) warnings.push(unknownKeyword(where, keyword, path));
        } else {
          const applied = dialectsApplying(keyword);
          if (applied !== undefined && !applied.includes(dialect)) {
            warnings.push(otherDialectKeyword(where, keyword, path, dialect, applied, schema));
          }
        }
      }
      if (typeof node.format === "string" && !formatNames().includes(node.format)) {
        warnings.push(unknownFormat(where, node.format, path));
      }
      // Reversed so they come off the stack in document order; pushed one by one, since a
      // spread of a very long `allOf` would exceed the engine's argument limit.
      for (const child of subschemasOf(node, path).reverse()) pending.push(child);
    }
  } catch {
    // Only an exotic value (a revoked proxy, a throwing getter) gets here. A lint is advice:
    // it must never be the reason a workflow fails to load, so it keeps what it found.
  }
  return warnings;
}

function unknownKeyword(where: string, keyword: string, path: string): string {
  const at = path === "" ? "at the top" : `at ${path}`;
  const near = nearestWord(keyword, KEYWORDS);
  return near === undefined
    ? `${where}: unknown JSON Schema keyword ${JSON.stringify(keyword)} ${at}; ajv ignores it (prefix it with "x-" if it is an annotation of yours)`
    : `${where}: unknown JSON Schema keyword ${JSON.stringify(keyword)} ${at} (did you mean "${near}"?); ajv ignores it`;
}

function otherDialectKeyword(
  where: string,
  keyword: string,
  path: string,
  dialect: SchemaDialect,
  applied: readonly SchemaDialect[],
  schema: unknown,
): string {
  const at = path === "" ? "at the top" : `at ${path}`;
  const declared = isPlainObject(schema) && typeof schema.$schema === "string";
  const which = declared
    ? `${dialect}, the dialect this schema declares`
    : `${dialect}, the dialect of a schema without "$schema"`;
  const instead = REPLACED_IN_2020_12[keyword];
  const fix =
    dialect === "2020-12" && instead !== undefined
      ? instead
      : `it needs "$schema: ${DIALECT_URIS[applied[applied.length - 1]!]}"`;
  return `${where}: JSON Schema keyword ${JSON.stringify(keyword)} ${at} is not part of ${which}; ajv ignores it (${fix})`;
}

let formats: string[] | undefined;
const formatNames = (): string[] => (formats ??= knownFormatNames());

/** A format ajv does not know is ignored, like a keyword: the value is then not checked. */
function unknownFormat(where: string, format: string, path: string): string {
  const at = path === "" ? "at the top" : `at ${path}`;
  const near = nearestWord(format, formatNames());
  return `${where}: unknown format ${JSON.stringify(format)} ${at}${near === undefined ? "" : ` (did you mean "${near}"?)`}; values are not checked against it`;
}

/** The schemas directly inside `node`, in the order their keywords appear. */
function subschemasOf(node: SchemaMap, path: string): Pending[] {
  const out: Pending[] = [];
  for (const [keyword, value] of Object.entries(node)) {
    const at = joinPath(path, keyword);
    if (Array.isArray(value)) {
      if (!SCHEMA_LISTS.has(keyword)) continue;
      for (const [index, item] of value.entries())
        out.push({ schema: item, path: `${at}[${index}]` });
    } else if (SCHEMA_VALUED.has(keyword)) {
      out.push({ schema: value, path: at });
    } else if (SCHEMA_MAPS.has(keyword) && isPlainObject(value)) {
      // The names here are the author's (a property may well be called `requird`): only the
      // schemas they name are read as schemas.
      for (const [name, item] of Object.entries(value)) {
        out.push({ schema: item, path: joinPath(at, name) });
      }
    }
  }
  return out;
}

function joinPath(path: string, name: string): string {
  // Names that would read ambiguously after a dot (`a.b`, `x y`, ``) are quoted.
  const segment = /^[\w$-]+$/.test(name) ? name : `[${JSON.stringify(name)}]`;
  if (path === "") return segment;
  return segment.startsWith("[") ? `${path}${segment}` : `${path}.${segment}`;
}
