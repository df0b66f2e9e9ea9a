/**
 * Whether `value` is what JSON calls an object: not null, not an array. The one guard every
 * package uses before it reads fields of a value it did not build (parsed JSON or YAML, a
 * message from another process). Pure, for Node and the browser alike.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
