import {
  BUILTIN_SCHEMA_HASHES,
  BUILTIN_SCHEMAS,
  type BuiltinNodeKind,
  type JsonSchema,
  SCHEMA_TYPE,
} from "@united-workforce/protocol";
import { canonicalJson } from "@united-workforce/util";
import { nodeBytes } from "./node-codec.js";

export interface BuiltinSchemaNode {
  kind: BuiltinNodeKind;
  hash: string;
  bytes: Buffer;
  schema: JsonSchema;
}

/** The pinned hash of each built-in schema node (see protocol's BUILTIN_SCHEMA_HASHES). */
export const BUILTIN_HASHES = BUILTIN_SCHEMA_HASHES;

export const BUILTIN_KINDS = Object.keys(BUILTIN_SCHEMAS) as BuiltinNodeKind[];

const KIND_OF_HASH = new Map(BUILTIN_KINDS.map((kind) => [BUILTIN_HASHES[kind], kind] as const));

// The bytes are made only for a node that is actually written or read as a schema.
const computed = new Map<BuiltinNodeKind, BuiltinSchemaNode>();

export function builtinSchemaNode(kind: BuiltinNodeKind): BuiltinSchemaNode {
  let entry = computed.get(kind);
  if (entry === undefined) {
    const schema = BUILTIN_SCHEMAS[kind] as unknown as JsonSchema;
    const bytes = nodeBytes(SCHEMA_TYPE, canonicalJson(schema));
    entry = { kind, hash: BUILTIN_HASHES[kind], bytes, schema };
    computed.set(kind, entry);
  }
  return entry;
}

/** The built-in kind whose schema node has this hash, if any. */
export function builtinKindOf(hash: string): BuiltinNodeKind | null {
  return KIND_OF_HASH.get(hash) ?? null;
}
