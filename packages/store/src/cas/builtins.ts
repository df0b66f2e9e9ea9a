import {
  BUILTIN_SCHEMAS,
  type BuiltinNodeKind,
  type JsonSchema,
  SCHEMA_TYPE,
} from "@united-workforce/protocol";
import { canonicalJson, hashBytes } from "@united-workforce/util";
import { nodeBytes } from "./node-codec.js";

export interface BuiltinSchemaNode {
  kind: BuiltinNodeKind;
  hash: string;
  bytes: Buffer;
  schema: JsonSchema;
}

// Protocol constants never change within a process: hash each built-in schema once.
const computed = new Map<BuiltinNodeKind, BuiltinSchemaNode>();

export function builtinSchemaNode(kind: BuiltinNodeKind): BuiltinSchemaNode {
  let entry = computed.get(kind);
  if (entry === undefined) {
    const schema = BUILTIN_SCHEMAS[kind] as unknown as JsonSchema;
    const bytes = nodeBytes(SCHEMA_TYPE, canonicalJson(schema));
    entry = { kind, hash: hashBytes(bytes), bytes, schema };
    computed.set(kind, entry);
  }
  return entry;
}

export const BUILTIN_KINDS = Object.keys(BUILTIN_SCHEMAS) as BuiltinNodeKind[];

/** The built-in kind whose schema node has this hash, if any. */
export function builtinKindOf(hash: string): BuiltinNodeKind | null {
  for (const kind of BUILTIN_KINDS) if (builtinSchemaNode(kind).hash === hash) return kind;
  return null;
}
