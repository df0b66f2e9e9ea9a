import { isPlainObject } from "@united-workforce/protocol";

/** Small readers over JSON Schema fragments written by hand in workflow YAML. */

export type SchemaMap = Record<string, unknown>;

export function hasOwn(value: SchemaMap, key: string): boolean {
  return Object.hasOwn(value, key);
}

/** `properties` of a schema, or null when it declares none. */
export function propertiesOf(schema: unknown): SchemaMap | null {
  if (!isPlainObject(schema)) return null;
  const properties = schema.properties;
  return isPlainObject(properties) ? properties : null;
}

/** The string entries of a schema's `required`. */
export function requiredOf(schema: SchemaMap): string[] {
  return Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === "string")
    : [];
}

/**
 * The `properties` of several schemas that all apply to one value, in declaration order: a
 * property declared again refines the earlier declaration keyword by keyword (the later
 * keyword wins), the way a variant refines a shared property. A boolean property schema adds
 * no keywords: it still declares the name, and ajv still applies it when validating.
 */
export function mergeProperties(...schemas: SchemaMap[]): SchemaMap {
  const merged: Record<string, SchemaMap> = {};
  for (const schema of schemas) {
    for (const [name, property] of Object.entries(propertiesOf(schema) ?? {})) {
      merged[name] = { ...merged[name], ...(isPlainObject(property) ? property : {}) };
    }
  }
  return merged;
}

/** The variants of `oneOf`/`anyOf`/`allOf`, whichever are present, as mappings. */
export function variantsOf(schema: SchemaMap): SchemaMap[] {
  const out: SchemaMap[] = [];
  for (const keyword of ["oneOf", "anyOf", "allOf"]) {
    const list = schema[keyword];
    if (Array.isArray(list)) out.push(...list.filter(isPlainObject));
  }
  return out;
}

const SCALAR_TYPES = new Set(["string", "number", "integer", "boolean", "null"]);

/** True when a schema can only describe values that have no named fields. */
export function isFieldless(schema: SchemaMap): boolean {
  const type = schema.type;
  const types = Array.isArray(type) ? type : [type];
  if (type === undefined) return hasOwn(schema, "const") || hasOwn(schema, "enum");
  return types.every((t) => typeof t === "string" && (SCALAR_TYPES.has(t) || t === "array"));
}

export function isArraySchema(schema: SchemaMap): boolean {
  return schema.type === "array" || hasOwn(schema, "items");
}
