/**
 * A small JSON Schema checker for the keywords the config schema uses (see CONFIG_SCHEMA in
 * protocol). The config is read on every exec, and loading ajv there would cost ≈ 40 ms per
 * process for a file of a dozen keys; this costs nothing to load. A test checks it agrees
 * with ajv, and that the schema uses no other keyword.
 */

import { isPlainObject } from "@united-workforce/protocol";
import { isSecretName, maskSecret, maskSecretsInText } from "@united-workforce/util";

export interface SchemaLike {
  type?: string | readonly string[];
  properties?: Readonly<Record<string, SchemaLike>>;
  required?: readonly string[];
  additionalProperties?: SchemaLike | boolean;
  items?: SchemaLike;
  minLength?: number;
  exclusiveMinimum?: number;
  enum?: readonly unknown[];
  [keyword: string]: unknown;
}

/** Keywords that change what is valid; anything else (description, title, $schema) is a note. */
export const CHECKED_KEYWORDS = [
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "minLength",
  "exclusiveMinimum",
  "enum",
] as const;

/**
 * Every problem with `value`, each naming its key path (`agents.mock.args[1] must be …`). The
 * value is quoted with its secrets masked, and not at all under a secret's name (`name`, the
 * last key on the path): these messages are printed, and config.yaml holds API keys.
 */
export function schemaProblems(schema: SchemaLike, value: unknown, path = "", name = ""): string[] {
  const at = path === "" ? "the config" : path;
  const describe = (): string => describeValue(value, isSecretName(name));
  const types = schema.type === undefined ? null : ([] as string[]).concat(schema.type);
  if (types !== null && !types.some((type) => hasType(value, type))) {
    // "empty" (null) is allowed where a key may be left blank, but is not what to write.
    const wanted = types.length > 1 ? types.filter((type) => type !== "null") : types;
    return [`${at} must be ${wanted.map(typeName).join(" or ")}, got ${describe()}`];
  }
  if (schema.enum && !schema.enum.some((allowed) => allowed === value)) {
    return [`${at} must be one of ${schema.enum.join(", ")}, got ${describe()}`];
  }
  const problems: string[] = [];
  if (typeof value === "string" && schema.minLength !== undefined) {
    if (value.length < schema.minLength) problems.push(`${at} must not be empty`);
  }
  if (typeof value === "number" && schema.exclusiveMinimum !== undefined) {
    if (!(value > schema.exclusiveMinimum)) {
      problems.push(`${at} must be greater than ${schema.exclusiveMinimum}, got ${describe()}`);
    }
  }
  if (Array.isArray(value) && schema.items) {
    value.forEach((item, index) => {
      problems.push(...schemaProblems(schema.items!, item, `${at}[${index}]`, name));
    });
  }
  if (isPlainObject(value)) {
    for (const key of schema.required ?? []) {
      if (!Object.hasOwn(value, key)) {
        const expected = schema.properties?.[key]?.type;
        const what = expected === undefined ? "" : ` (${typeName([expected].flat()[0]!)})`;
        problems.push(`${keyPath(path, key)} is required${what}`);
      }
    }
    for (const [key, item] of Object.entries(value)) {
      const own = schema.properties?.[key];
      const rule = own ?? schema.additionalProperties;
      if (rule === false) problems.push(`${keyPath(path, key)} is not a known key`);
      else if (rule !== undefined && rule !== true) {
        problems.push(...schemaProblems(rule, item, keyPath(path, key), key));
      }
    }
  }
  return problems;
}

/**
 * Keys of `value` that the schema does not name, where it names a mapping's keys
 * (`properties` without `additionalProperties`): probably typos, or another tool's settings.
 * Only called on a value `schemaProblems` accepts.
 */
export function unknownKeys(schema: SchemaLike, value: unknown, path = ""): string[] {
  if (Array.isArray(value) && schema.items) {
    return value.flatMap((item, index) => unknownKeys(schema.items!, item, `${path}[${index}]`));
  }
  if (!isPlainObject(value)) return [];
  const found: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    const own = schema.properties?.[key];
    const rule = own ?? schema.additionalProperties;
    if (rule === undefined) {
      if (schema.properties) found.push(keyPath(path, key));
    } else if (rule !== true && rule !== false) {
      found.push(...unknownKeys(rule, item, keyPath(path, key)));
    }
  }
  return found;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case "object":
      return isPlainObject(value);
    case "array":
      return Array.isArray(value);
    case "null":
      return value === null;
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    default:
      return typeof value === type;
  }
}

const TYPE_NAMES: Record<string, string> = {
  object: "a mapping",
  array: "a list",
  string: "a string",
  number: "a number",
  integer: "a whole number",
  boolean: "true or false",
  null: "empty",
};

function typeName(type: string): string {
  return TYPE_NAMES[type] ?? type;
}

function describeValue(value: unknown, secret: boolean): string {
  if (value === null || value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") {
    if (secret) return JSON.stringify(maskSecret(value));
    const masked = maskSecretsInText(value);
    const shown = masked.length > 40 ? `${masked.slice(0, 40)}…` : masked;
    return JSON.stringify(shown);
  }
  if (secret) return `a ${typeof value}`;
  return String(value);
}

/** `agents.mock`, or `agents["my.agent"]` for a key a dot would make ambiguous. */
export function keyPath(path: string, key: string): string {
  const part = /^[A-Za-z_$][\w$-]*$/.test(key) ? key : `[${JSON.stringify(key)}]`;
  if (path === "") return part;
  return part.startsWith("[") ? `${path}${part}` : `${path}.${part}`;
}
