import { isPlainObject } from "./plain-object.js";

/**
 * The TypeScript type a JSON Schema describes, so each protocol type is written once, as its
 * schema (`as const`), and the type is derived: the two cannot drift.
 *
 * It reads exactly the keywords protocol's schemas use: `type` (one or a list), `const`,
 * `enum`, `anyOf`/`oneOf`, `properties` with `required`, `additionalProperties` (a schema, on
 * an object without `properties`) and `items`. An object with `properties` is typed by them
 * alone: extra keys a schema allows are not part of the type. Anything else (formats,
 * patterns, bounds) checks values, not types. A schema it cannot read is `unknown`, never
 * `any`, and `unsupportedKeywords` lets a test catch one early.
 *
 * `matchesSchema` and `schemaMismatches` (schema-check.ts) check values by the same keywords.
 *
 * Written here rather than taken from `json-schema-to-ts`: that library made protocol's
 * check ten times slower for five schemas, and its types would be a dependency of everything
 * that imports protocol's declarations (see docs/decisions/protocol-types-from-schemas.md).
 */
export type FromSchema<S> = S extends { const: infer C }
  ? C
  : S extends { enum: readonly (infer E)[] }
    ? E
    : S extends { anyOf: readonly (infer A)[] }
      ? FromSchema<A>
      : S extends { oneOf: readonly (infer A)[] }
        ? FromSchema<A>
        : S extends { type: infer T }
          ? FromTypes<T extends readonly (infer U)[] ? U : T, S>
          : unknown;

type FromTypes<T, S> = T extends "string"
  ? string
  : T extends "integer" | "number"
    ? number
    : T extends "boolean"
      ? boolean
      : T extends "null"
        ? null
        : T extends "array"
          ? S extends { items: infer I }
            ? FromSchema<I>[]
            : unknown[]
          : T extends "object"
            ? FromObject<S>
            : never;

type FromObject<S> = S extends { properties: infer P }
  ? Simplify<
      {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? K : never]: FromSchema<P[K]>;
      } & {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? never : K]?: FromSchema<P[K]>;
      }
    >
  : S extends { additionalProperties: infer A extends object }
    ? { [key: string]: FromSchema<A> }
    : { [key: string]: unknown };

type RequiredKeys<S> = S extends { required: readonly (infer K)[] } ? K : never;
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The keywords `FromSchema` understands or knows to be value checks only (and the schema check reads). */
const KNOWN_KEYWORDS = new Set([
  "type",
  "const",
  "enum",
  "anyOf",
  "oneOf",
  "properties",
  "required",
  "additionalProperties",
  "items",
  // Value checks and notes: they do not change the type.
  "$id",
  "title",
  "description",
  "format",
  "pattern",
  "minimum",
  "maximum",
  "minLength",
  "minItems",
]);

/**
 * Keywords of a schema (and the schemas inside it) that `FromSchema` would silently ignore,
 * as JSON-pointer-ish paths: a test keeps this empty for every protocol schema.
 */
export function unsupportedKeywords(schema: unknown, at = ""): string[] {
  if (!isPlainObject(schema)) return [];
  const found: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    const here = `${at}/${key}`;
    if (!KNOWN_KEYWORDS.has(key)) found.push(here);
    else if (key === "properties")
      for (const [name, inner] of Object.entries(value as object))
        found.push(...unsupportedKeywords(inner, `${here}/${name}`));
    else if (key === "anyOf" || key === "oneOf")
      (value as unknown[]).forEach((inner, i) => {
        found.push(...unsupportedKeywords(inner, `${here}/${i}`));
      });
    else if (key === "items" || key === "additionalProperties")
      found.push(...unsupportedKeywords(value, here));
  }
  return found;
}
