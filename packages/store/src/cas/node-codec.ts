import { type CasNode, isHash, isPlainObject, SCHEMA_TYPE } from "@united-workforce/protocol";
import { canonicalJson } from "@united-workforce/util";

/**
 * The stored bytes of a node whose payload is already canonical JSON. `payload` sorts before
 * `type`, so this is exactly `canonicalJson({ type, payload })` without serialising twice.
 */
export function nodeBytes(type: string, payloadJson: string): Buffer {
  return Buffer.from(`{"payload":${payloadJson},"type":${JSON.stringify(type)}}`, "utf8");
}

export function encodeNode(node: CasNode<unknown>): Buffer {
  return nodeBytes(node.type, canonicalJson(node.payload));
}

export function isNodeType(type: unknown): type is string {
  return type === SCHEMA_TYPE || isHash(type);
}

/** Parse stored bytes into a node, or say what is wrong with them. */
export function decodeNode(bytes: Uint8Array): { node: CasNode } | { problem: string } {
  if (bytes.length === 0) return { problem: "the file is empty" };
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8"));
  } catch {
    return { problem: "the content is not JSON" };
  }
  if (!isPlainObject(value)) {
    return { problem: "the content is not a { type, payload } node" };
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length !== 2 || !("payload" in record) || !("type" in record)) {
    return { problem: "the content is not a { type, payload } node" };
  }
  if (!isNodeType(record.type)) {
    return { problem: `its type ${JSON.stringify(record.type)} is neither "schema" nor a hash` };
  }
  return { node: record as unknown as CasNode };
}
