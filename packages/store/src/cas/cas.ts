import { join } from "node:path";
import {
  type BuiltinNodeKind,
  type CasGcDocument,
  type CasNode,
  type CasVerifyDocument,
  type JsonSchema,
  SCHEMA_TYPE,
} from "@united-workforce/protocol";
import { canonicalJson, errorMessage, hashBytes, UwfError } from "@united-workforce/util";
import { runValidator, validatorFor } from "../schemas/validator-cache.js";
import type { CasBackend } from "./backend.js";
import { builtinKindOf, builtinSchemaNode } from "./builtins.js";
import { createFsBackend } from "./fs-backend.js";
import { collectGarbage } from "./gc.js";
import { assertHash } from "./hash-check.js";
import { decodeNode, encodeNode, isNodeType, nodeBytes } from "./node-codec.js";
import { collectRefs } from "./refs.js";
import { verifyBackend } from "./verify.js";

const VERIFY_HINT = "run `uwf cas verify` to check the whole store";

/** The content-addressed store: immutable `{ type, payload }` nodes named by their hash. */
/** Where compiled validators of a storage root are cached (safe to delete). */
export function validatorCacheDir(home: string): string {
  return join(home, "cache", "validators");
}

export class Cas {
  readonly #backend: CasBackend;
  // Schema payloads by hash: immutable, read again for every node of their type.
  readonly #schemas = new Map<string, JsonSchema>();
  readonly #writtenBuiltins = new Set<BuiltinNodeKind>();
  // Compiled validators shared with later processes (schemas/disk-cache.ts); none if unset.
  readonly #validatorCacheDir: string | undefined;

  constructor(backend: CasBackend, options: { validatorCacheDir?: string } = {}) {
    this.#backend = backend;
    this.#validatorCacheDir = options.validatorCacheDir;
  }

  /** The filesystem store at `<home>/cas`; compiled validators go to `<home>/cache/validators`. */
  static open(home: string): Cas {
    return new Cas(createFsBackend(join(home, "cas")), {
      validatorCacheDir: validatorCacheDir(home),
    });
  }

  /** Store a node as is (no schema validation). */
  putNode(node: CasNode<unknown>): { hash: string; created: boolean } {
    if (!isNodeType(node.type)) {
      throw new UwfError(
        "NODE_INVALID",
        `node type ${JSON.stringify(node.type)} is neither "schema" nor a hash`,
      );
    }
    return this.#store(encodeNode(node));
  }

  /** Validate the payload against the schema node `type`, then store it. */
  put(type: string, payload: unknown): string {
    assertHash(type, "schema hash");
    const payloadJson = toCanonicalJson(payload);
    // Validate what will be stored (no `undefined` members), not the caller's object.
    const { valid, errors } = this.validate(type, JSON.parse(payloadJson));
    if (!valid) {
      throw new UwfError(
        "NODE_INVALID",
        `payload does not match schema ${type}: ${errors.join("; ")}`,
        {
          hint: `fix the payload (\`uwf cas get ${type}\` prints the schema it must match)`,
          details: { schema: type, errors },
        },
      );
    }
    return this.#store(nodeBytes(type, payloadJson)).hash;
  }

  /** Store a JSON Schema as a schema node; refuses one ajv cannot compile. */
  putSchema(schema: JsonSchema): string {
    if (schema === null || typeof schema !== "object" || Array.isArray(schema)) {
      throw new UwfError("SCHEMA_INVALID", "a schema must be a JSON object");
    }
    const payloadJson = toCanonicalJson(schema);
    const bytes = nodeBytes(SCHEMA_TYPE, payloadJson);
    const hash = hashBytes(bytes);
    const stored = JSON.parse(payloadJson) as JsonSchema;
    validatorFor(hash, stored, this.#validatorCacheDir);
    this.#schemas.set(hash, stored);
    this.#backend.write(hash, bytes);
    return hash;
  }

  putText(text: string): string {
    // The text schema is `{ type: "string" }`: checking it here keeps ajv out of the process.
    if (typeof text !== "string") throw new UwfError("NODE_INVALID", "a text node holds a string");
    return this.#store(nodeBytes(this.builtin("text"), JSON.stringify(text))).hash;
  }

  /** Hash of a built-in schema node, written to this store on first use. */
  builtin(kind: BuiltinNodeKind): string {
    const builtin = builtinSchemaNode(kind);
    if (!this.#writtenBuiltins.has(kind)) {
      this.#backend.write(builtin.hash, builtin.bytes);
      this.#writtenBuiltins.add(kind);
    }
    return builtin.hash;
  }

  get(hash: string): CasNode {
    assertHash(hash);
    const bytes = this.#backend.read(hash);
    if (bytes === null) {
      throw new UwfError("CAS_NOT_FOUND", `node ${hash} is not in the CAS`, {
        hint: "check the hash; `uwf cas has <hash>` tells whether a node exists",
        details: { hash },
      });
    }
    const actual = hashBytes(bytes);
    if (actual !== hash) {
      throw this.#corrupt(
        hash,
        `content does not match its name (it hashes to ${actual}; truncated or edited)`,
      );
    }
    const decoded = decodeNode(bytes);
    if ("problem" in decoded) throw this.#corrupt(hash, decoded.problem);
    return decoded.node;
  }

  getPayload<T>(hash: string, kind?: BuiltinNodeKind): T {
    const node = this.get(hash);
    if (kind !== undefined && node.type !== builtinSchemaNode(kind).hash) {
      throw new UwfError(
        "NODE_INVALID",
        `node ${hash} is ${describeType(node.type)}, not a ${kind} node`,
        {
          details: { hash, type: node.type, expected: kind },
        },
      );
    }
    return node.payload as T;
  }

  getText(hash: string): string {
    return this.getPayload<string>(hash, "text");
  }

  has(hash: string): boolean {
    assertHash(hash);
    return this.#backend.has(hash);
  }

  /** The hashes a node points to: its schema node, then its cas-ref payload fields. */
  refs(hash: string): string[] {
    return this.#refsOf(this.get(hash));
  }

  /** Breadth-first from root, each node once; `maxDepth` 0 yields only the root. */
  *walk(
    root: string,
    options: { maxDepth?: number } = {},
  ): Generator<{ hash: string; node: CasNode; depth: number }> {
    const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
    const seen = new Set([root]);
    let level = [root];
    for (let depth = 0; level.length > 0; depth++) {
      const next: string[] = [];
      for (const hash of level) {
        const node = this.get(hash);
        yield { hash, node, depth };
        if (depth >= maxDepth) continue;
        for (const ref of this.#refsOf(node)) {
          if (seen.has(ref)) continue;
          seen.add(ref);
          next.push(ref);
        }
      }
      level = next;
    }
  }

  verify(): CasVerifyDocument {
    return verifyBackend(this.#backend);
  }

  /**
   * Delete every node not reachable from the roots (built-in schemas are always kept). Pass the
   * roots as a function to read them after the store is listed (see collectGarbage).
   */
  gc(
    roots: readonly string[] | (() => readonly string[]),
    options: { dryRun: boolean; keepRecentMs?: number },
  ): CasGcDocument {
    const checkedRoots = (): readonly string[] => {
      const list = typeof roots === "function" ? roots() : roots;
      for (const root of list) assertHash(root, "gc root");
      return list;
    };
    const refs = (hash: string): string[] => {
      try {
        return this.refs(hash);
      } catch (error) {
        throw new UwfError(
          "CAS_CORRUPT",
          `gc refused: reachable node ${hash} cannot be read (${errorMessage(error)})`,
          {
            hint: `nothing was deleted; ${VERIFY_HINT}, then repair or remove what points to ${hash}`,
            cause: error,
            details: { hash },
          },
        );
      }
    };
    return collectGarbage({ backend: this.#backend, refs }, checkedRoots, options);
  }

  validate(schemaHash: string, payload: unknown): { valid: boolean; errors: string[] } {
    const schema = this.#schema(schemaHash);
    return runValidator(validatorFor(schemaHash, schema, this.#validatorCacheDir), payload);
  }

  #store(bytes: Buffer): { hash: string; created: boolean } {
    const hash = hashBytes(bytes);
    return { hash, created: this.#backend.write(hash, bytes) };
  }

  #schema(hash: string): JsonSchema {
    let schema = this.#schemas.get(hash);
    if (schema === undefined) {
      const builtin = builtinKindOf(hash);
      if (builtin !== null) {
        // Known without reading; written here so nodes stored with this type find their schema.
        this.builtin(builtin);
        schema = builtinSchemaNode(builtin).schema;
      } else {
        const node = this.get(hash);
        if (node.type !== SCHEMA_TYPE) {
          throw new UwfError(
            "NODE_INVALID",
            `node ${hash} is ${describeType(node.type)}, not a schema`,
            {
              details: { hash },
            },
          );
        }
        schema = node.payload as JsonSchema;
      }
      this.#schemas.set(hash, schema);
    }
    return schema;
  }

  #refsOf(node: CasNode): string[] {
    if (node.type === SCHEMA_TYPE) return [];
    const refs = collectRefs(this.#schema(node.type), node.payload);
    return [node.type, ...refs.filter((ref) => ref !== node.type)];
  }

  #corrupt(hash: string, problem: string): UwfError {
    const file = this.#backend.locate(hash);
    return new UwfError("CAS_CORRUPT", `${file}: ${problem}`, {
      hint: `${VERIFY_HINT}; restore the file from a backup, or delete it if nothing needs it`,
      details: { hash, file },
    });
  }
}

function toCanonicalJson(payload: unknown): string {
  try {
    return canonicalJson(payload);
  } catch (error) {
    throw new UwfError("NODE_INVALID", `payload is not JSON: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}

function describeType(type: string): string {
  if (type === SCHEMA_TYPE) return "a schema node";
  const kind = builtinKindOf(type);
  return kind === null ? `a node of type ${type}` : `a ${kind} node`;
}
