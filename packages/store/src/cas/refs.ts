import { CAS_REF_FORMAT, isHash, isPlainObject, type JsonSchema } from "@united-workforce/protocol";

type Schema = Record<string, unknown>;

// A `$ref` chain that never reaches a keyword with a value to descend into would loop forever.
const MAX_REF_HOPS = 32;

/**
 * Every payload value at a schema position with `"format": "cas-ref"`, in schema order, each
 * once. Follows properties, patternProperties, additionalProperties, items, prefixItems,
 * oneOf/anyOf/allOf, if/then/else and local `$ref`s. A union branch is followed only when the
 * value can match it (its `type`, `const` and `enum`, and those of its properties), so a
 * discriminated union does not mistake a plain string of another variant for a ref.
 */
export function collectRefs(schema: JsonSchema, payload: unknown): string[] {
  const found = new Set<string>();
  visit(schema as Schema, schema as Schema, payload, found, 0);
  return [...found];
}

function visit(root: Schema, schema: unknown, value: unknown, found: Set<string>, hops: number) {
  if (!isObject(schema) || value === undefined) return;

  if (typeof schema.$ref === "string" && hops < MAX_REF_HOPS) {
    visit(root, resolveLocalRef(root, schema.$ref), value, found, hops + 1);
  }
  if (schema.format === CAS_REF_FORMAT && isHash(value)) found.add(value);

  for (const key of ["allOf", "anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      if (key === "allOf" || mayMatch(root, branch, value)) visit(root, branch, value, found, hops);
    }
  }
  for (const key of ["then", "else"] as const) {
    if (mayMatch(root, schema[key], value)) visit(root, schema[key], value, found, hops);
  }

  if (Array.isArray(value)) visitItems(root, schema, value, found);
  else if (isObject(value)) visitProperties(root, schema, value, found);
}

function visitProperties(root: Schema, schema: Schema, value: Schema, found: Set<string>) {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const patterns = isObject(schema.patternProperties)
    ? Object.entries(schema.patternProperties).flatMap(([pattern, sub]) => {
        const regex = safeRegExp(pattern);
        return regex === null ? [] : [{ regex, sub }];
      })
    : [];
  for (const [key, member] of Object.entries(value)) {
    let matched = false;
    if (Object.hasOwn(properties, key)) {
      matched = true;
      visit(root, properties[key], member, found, 0);
    }
    for (const { regex, sub } of patterns) {
      if (!regex.test(key)) continue;
      matched = true;
      visit(root, sub, member, found, 0);
    }
    if (!matched) visit(root, schema.additionalProperties, member, found, 0);
  }
}

function visitItems(root: Schema, schema: Schema, value: unknown[], found: Set<string>) {
  // Draft-07 tuples are `items: [...]` + `additionalItems`; 2020-12 uses `prefixItems` + `items`.
  const tuple = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
      ? schema.items
      : [];
  const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
  value.forEach((item, index) => {
    visit(root, index < tuple.length ? tuple[index] : rest, item, found, 0);
  });
}

/** A cheap, conservative "could this value match this schema" used to pick union branches. */
function mayMatch(root: Schema, schema: unknown, value: unknown, hops = 0): boolean {
  if (!isObject(schema)) return schema !== false;
  if (typeof schema.$ref === "string" && hops < MAX_REF_HOPS) {
    if (!mayMatch(root, resolveLocalRef(root, schema.$ref), value, hops + 1)) return false;
  }
  if (!matchesType(schema.type, value)) return false;
  if ("const" in schema && !sameJson(schema.const, value)) return false;
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => sameJson(option, value))) {
    return false;
  }
  if (isPlainObject(value) && isObject(schema.properties)) {
    for (const [key, sub] of Object.entries(schema.properties)) {
      if (!Object.hasOwn(value, key) || !isObject(sub)) continue;
      const member = value[key];
      if ("const" in sub && !sameJson(sub.const, member)) return false;
      if (Array.isArray(sub.enum) && !sub.enum.some((option) => sameJson(option, member))) {
        return false;
      }
    }
  }
  return true;
}

function matchesType(type: unknown, value: unknown): boolean {
  if (type === undefined) return true;
  const types = Array.isArray(type) ? type : [type];
  return types.some((name) => {
    switch (name) {
      case "null":
        return value === null;
      case "array":
        return Array.isArray(value);
      case "object":
        return isPlainObject(value);
      case "integer":
        return Number.isInteger(value);
      case "number":
      case "string":
      case "boolean":
        return typeof value === name;
      default:
        return true;
    }
  });
}

function resolveLocalRef(root: Schema, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let current: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isObject(current)) return undefined;
    current = current[key];
  }
  return current;
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

function safeRegExp(pattern: string): RegExp | null {
  try {
    return new RegExp(pattern, "u");
  } catch {
    return null;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object";
}
