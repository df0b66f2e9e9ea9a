import { BUILTIN_SCHEMAS, type BuiltinNodeKind, SCHEMA_TYPE } from "@united-workforce/protocol";
import { canonicalJson, hashBytes } from "@united-workforce/util";

let kinds: Map<string, BuiltinNodeKind> | undefined;

/** A node type for people: "schema", a built-in kind ("workflow", "step", …), or the hash. */
export function typeName(type: string): string {
  if (type === SCHEMA_TYPE) return SCHEMA_TYPE;
  kinds ??= new Map(
    (Object.keys(BUILTIN_SCHEMAS) as BuiltinNodeKind[]).map((kind) => [
      hashBytes(canonicalJson({ type: SCHEMA_TYPE, payload: BUILTIN_SCHEMAS[kind] })),
      kind,
    ]),
  );
  return kinds.get(type) ?? type;
}
