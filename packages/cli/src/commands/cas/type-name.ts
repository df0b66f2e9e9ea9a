import {
  BUILTIN_SCHEMA_HASHES,
  type BuiltinNodeKind,
  SCHEMA_TYPE,
} from "@united-workforce/protocol";

const KINDS = new Map(
  (Object.entries(BUILTIN_SCHEMA_HASHES) as [BuiltinNodeKind, string][]).map(([kind, hash]) => [
    hash,
    kind,
  ]),
);

/** A node type for people: "schema", a built-in kind ("workflow", "step", …), or the hash. */
export function typeName(type: string): string {
  if (type === SCHEMA_TYPE) return SCHEMA_TYPE;
  return KINDS.get(type) ?? type;
}
