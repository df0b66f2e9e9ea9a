import {
  type BuiltinNodeKind,
  type CasNode,
  type CasVerifyDocument,
  editionsOf,
  isPlainObject,
  type JsonSchema,
  SCHEMA_TYPE,
} from "@united-workforce/protocol";
import {
  canonicalJson,
  errorMessage,
  hashBytes,
  isUwfError,
  UwfError,
} from "@united-workforce/util";
import { runValidator, validatorFor } from "../schemas/validator-cache.js";
import { BUILTIN_HASHES, BUILTIN_KINDS, builtinKindOf, builtinSchemaNode } from "./builtins.js";
import type { CasBackend, CasWrite } from "./cas-backend.js";
import { assertHash } from "./hash-check.js";
import { KeptNodes } from "./kept-nodes.js";
import { decodeNode, encodeNode, isNodeType, nodeBytes } from "./node-codec.js";
import { collectRefs } from "./refs.js";
import { verifyBackend } from "./verify.js";

export const VERIFY_HINT = "run `uwf cas verify` to check the whole store";

/**
 * Nodes waiting to be written together: one backend round trip for a whole step (output, body,
 * detail, prompt, step node). Hashes are known at once, so later nodes can point to earlier ones.
 */
export class CasBatch {
  readonly #cas: Cas;
  readonly #nodes = new Map<string, CasWrite>();

  constructor(cas: Cas) {
    this.#cas = cas;
  }

  /** Validate the payload against the schema node `type`, then queue it. */
  async put(type: string, payload: unknown): Promise<string> {
    const node = await this.#cas.prepare(type, payload);
    this.#nodes.set(node.hash, node);
    return node.hash;
  }

  putText(text: string): string {
    const node = this.#cas.prepareText(text);
    this.#nodes.set(node.hash, node);
    return node.hash;
  }

  putSchema(schema: JsonSchema): string {
    const node = this.#cas.prepareSchema(schema);
    this.#nodes.set(node.hash, node);
    return node.hash;
  }

  /** Write everything queued; returns the hashes that were new. */
  async flush(): Promise<Set<string>> {
    const nodes = [...this.#nodes.values()];
    this.#nodes.clear();
    return this.#cas.writeAll(nodes);
  }
}

/** The content-addressed store: immutable `{ type, payload }` nodes named by their hash. */
export class Cas {
  readonly backend: CasBackend;
  // Schema payloads by hash: immutable, read again for every node of their type.
  readonly #schemas = new Map<string, JsonSchema>();
  // Built-in schema nodes this process has not written yet: they ride along with the next write.
  readonly #pendingBuiltins = new Set<BuiltinNodeKind>(BUILTIN_KINDS);
  // Compiled validators shared with later processes (schemas/disk-cache.ts); none if unset.
  readonly #validatorCacheDir: string | undefined;
  // Node bytes a run asked to keep (`prefetch`, `writeKept`): read again with no round trip.
  readonly #kept = new KeptNodes();

  constructor(backend: CasBackend, options: { validatorCacheDir?: string } = {}) {
    this.backend = backend;
    this.#validatorCacheDir = options.validatorCacheDir;
  }

  batch(): CasBatch {
    return new CasBatch(this);
  }

  /** Store a node as is (no schema validation); its schema node must be stored. */
  async putNode(node: CasNode<unknown>): Promise<{ hash: string; created: boolean }> {
    if (!isNodeType(node.type)) {
      throw new UwfError(
        "NODE_INVALID",
        `node type ${JSON.stringify(node.type)} is neither "schema" nor a hash`,
      );
    }
    const bytes = encodeNode(node);
    const hash = hashBytes(bytes);
    const refs = node.type === SCHEMA_TYPE ? [] : await this.#refsOf(node as CasNode);
    const created = await this.writeAll([{ hash, bytes, type: node.type, refs }]);
    return { hash, created: created.has(hash) };
  }

  /** Validate the payload against the schema node `type`, then store it. */
  async put(type: string, payload: unknown): Promise<string> {
    const node = await this.prepare(type, payload);
    await this.writeAll([node]);
    return node.hash;
  }

  /** Store a JSON Schema as a schema node; refuses one ajv cannot compile. */
  async putSchema(schema: JsonSchema): Promise<string> {
    const node = this.prepareSchema(schema);
    await this.writeAll([node]);
    return node.hash;
  }

  /**
   * A schema node ready to write: compiled (so one ajv cannot compile is refused) and known to
   * this process, so nodes of its type validate before it is stored.
   */
  prepareSchema(schema: JsonSchema): CasWrite {
    if (!isPlainObject(schema)) {
      throw new UwfError("SCHEMA_INVALID", "a schema must be a JSON object");
    }
    const payloadJson = toCanonicalJson(schema);
    const bytes = nodeBytes(SCHEMA_TYPE, payloadJson);
    const hash = hashBytes(bytes);
    const stored = JSON.parse(payloadJson) as JsonSchema;
    validatorFor(hash, stored, this.#validatorCacheDir);
    this.#schemas.set(hash, stored);
    return { hash, bytes, type: SCHEMA_TYPE, refs: [] };
  }

  async putText(text: string): Promise<string> {
    const node = this.prepareText(text);
    await this.writeAll([node]);
    return node.hash;
  }

  /** Hash of a built-in schema node; it is written with this process's next write. */
  builtin(kind: BuiltinNodeKind): string {
    return BUILTIN_HASHES[kind];
  }

  /** Whether a node of this type is a `kind` node, in any of the kind's editions. */
  isKind(type: string, kind: BuiltinNodeKind): boolean {
    return editionsOf(kind).some((edition) => BUILTIN_HASHES[edition] === type);
  }

  /**
   * Read `hashes`, and the nodes `refsOf` point to, in one round trip where the backend can
   * (PostgreSQL), and keep them for this Cas's later reads: a run reads its workflow, start and
   * role schemas once. Nodes are immutable, so a kept node never goes stale; the backends
   * without a round trip per read (the filesystem) keep nothing.
   */
  async prefetch(hashes: readonly string[], refsOf: readonly string[] = []): Promise<void> {
    if (this.backend.readMany === undefined) return;
    for (const [hash, bytes] of await this.backend.readMany(hashes, refsOf)) {
      this.#kept.add(hash, bytes);
    }
  }

  /**
   * Every node reachable from `roots` (the roots included) with the hashes it points to, as
   * `refs` gives them: one round trip where the backend follows its recorded refs (PostgreSQL),
   * else each node read. A built-in schema not yet written is there with no refs; a node that is
   * absent is left out (reading it says CAS_NOT_FOUND).
   */
  async reachableRefs(roots: readonly string[]): Promise<Map<string, readonly string[]>> {
    if (this.backend.reachableRefs !== undefined) {
      const reached = await this.backend.reachableRefs(roots);
      for (const refs of [roots, ...reached.values()]) {
        for (const hash of refs) {
          if (!reached.has(hash) && builtinKindOf(hash) !== null) reached.set(hash, []);
        }
      }
      return reached;
    }
    const reached = new Map<string, readonly string[]>();
    const queue = [...new Set(roots)];
    while (queue.length > 0) {
      const hash = queue.pop()!;
      if (reached.has(hash)) continue;
      let refs: string[];
      try {
        refs = await this.refs(hash);
      } catch (error) {
        if (isUwfError(error) && error.code === "CAS_NOT_FOUND") continue;
        throw error;
      }
      reached.set(hash, refs);
      for (const ref of refs) if (!reached.has(ref)) queue.push(ref);
    }
    return reached;
  }

  /**
   * Read the chains from `heads` (see `CasBackend.readChains`) in one round trip where the
   * backend can, and keep them like `prefetch` does. A history walk calls this when the next
   * step is not kept (`isKept`); the filesystem keeps nothing and is read node by node.
   */
  async prefetchChains(
    heads: readonly string[],
    through: readonly string[],
    length: number,
  ): Promise<void> {
    if (this.backend.readChains === undefined || heads.length === 0) return;
    for (const [hash, bytes] of await this.backend.readChains(heads, through, length)) {
      this.#kept.add(hash, bytes);
    }
  }

  /** Whether a node's bytes are kept (read again with no round trip). */
  isKept(hash: string): boolean {
    return this.#kept.get(hash) !== undefined;
  }

  /**
   * Write nodes another process prepared (an adapter, through the step's store uwf serves it)
   * and keep them: checking the step they make reads none of them back. They are checked when
   * read, like any node.
   */
  async writeKept(nodes: readonly CasWrite[]): Promise<Set<string>> {
    const created = await this.backend.write(nodes);
    for (const node of nodes) this.#kept.add(node.hash, node.bytes);
    return created;
  }

  /** A node's stored bytes, unchecked (the reader checks them), or null when it is absent. */
  readBytes(hash: string): Promise<Uint8Array | null> {
    assertHash(hash);
    const kept = this.#kept.get(hash);
    return kept === undefined ? this.backend.read(hash) : Promise.resolve(kept);
  }

  async get(hash: string): Promise<CasNode> {
    return (await this.read(hash)).node;
  }

  /**
   * A node and its exact stored bytes (a built-in schema not yet written: the bytes it would
   * have), re-hashed: bytes that do not hash to `hash` or do not decode are CAS_CORRUPT.
   */
  async read(hash: string): Promise<{ node: CasNode; bytes: Uint8Array }> {
    const bytes = await this.readBytes(hash);
    if (bytes === null) {
      // Built-in schemas are known to every store, written or not.
      const builtin = builtinKindOf(hash);
      if (builtin !== null) {
        const { schema, bytes } = builtinSchemaNode(builtin);
        return { node: { type: SCHEMA_TYPE, payload: schema }, bytes };
      }
      throw new UwfError("CAS_NOT_FOUND", `node ${hash} is not in the CAS`, {
        hint: "check the hash; `uwf cas has <hash>` tells whether a node exists",
        details: { hash },
      });
    }
    const actual = hashBytes(bytes);
    if (actual !== hash) {
      throw this.corrupt(
        hash,
        `content does not match its name (it hashes to ${actual}; truncated or edited)`,
      );
    }
    const decoded = decodeNode(bytes);
    if ("problem" in decoded) throw this.corrupt(hash, decoded.problem);
    return { node: decoded.node, bytes };
  }

  /** A node's payload; with `kind`, only when the node is of that built-in kind (any edition). */
  async getPayload<T>(hash: string, kind?: BuiltinNodeKind): Promise<T> {
    const node = await this.get(hash);
    if (kind !== undefined && !this.isKind(node.type, kind)) {
      throw new UwfError(
        "NODE_INVALID",
        `node ${hash} is ${describeType(node.type)}, not a ${kind} node`,
        { details: { hash, type: node.type, expected: kind } },
      );
    }
    return node.payload as T;
  }

  getText(hash: string): Promise<string> {
    return this.getPayload<string>(hash, "text");
  }

  async has(hash: string): Promise<boolean> {
    assertHash(hash);
    if (this.#kept.get(hash) !== undefined) return true;
    return (await this.backend.has(hash)) || builtinKindOf(hash) !== null;
  }

  /** The hashes a node points to: its schema node, then its cas-ref payload fields. */
  async refs(hash: string): Promise<string[]> {
    return this.#refsOf(await this.get(hash));
  }

  /** Breadth-first from root, each node once; `maxDepth` 0 yields only the root. */
  async *walk(
    root: string,
    options: { maxDepth?: number } = {},
  ): AsyncGenerator<{ hash: string; node: CasNode; depth: number }> {
    const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
    const seen = new Set([root]);
    let level = [root];
    for (let depth = 0; level.length > 0; depth++) {
      const next: string[] = [];
      for (const hash of level) {
        const node = await this.get(hash);
        yield { hash, node, depth };
        if (depth >= maxDepth) continue;
        for (const ref of await this.#refsOf(node)) {
          if (seen.has(ref)) continue;
          seen.add(ref);
          next.push(ref);
        }
      }
      level = next;
    }
  }

  verify(): Promise<CasVerifyDocument> {
    return verifyBackend(this.backend);
  }

  async validate(
    schemaHash: string,
    payload: unknown,
  ): Promise<{ valid: boolean; errors: string[] }> {
    return (await this.validator(schemaHash))(payload);
  }

  /** A synchronous validator for one schema node, for checking many candidates in a loop. */
  async validator(
    schemaHash: string,
  ): Promise<(payload: unknown) => { valid: boolean; errors: string[] }> {
    const schema = await this.#schema(schemaHash);
    const compiled = validatorFor(schemaHash, schema, this.#validatorCacheDir);
    return (payload) => runValidator(compiled, payload);
  }

  /**
   * A synchronous validator for a schema held in memory, and its hash. The schema is known to
   * this process afterwards (nodes of its type can be put) but is not written.
   */
  schemaValidator(schema: JsonSchema): {
    hash: string;
    validate: (payload: unknown) => { valid: boolean; errors: string[] };
  } {
    const { hash } = this.prepareSchema(schema);
    const compiled = validatorFor(hash, this.#schemas.get(hash)!, this.#validatorCacheDir);
    return { hash, validate: (payload) => runValidator(compiled, payload) };
  }

  /** A validated node ready to write (used by batches). */
  async prepare(type: string, payload: unknown): Promise<CasWrite> {
    assertHash(type, "schema hash");
    const payloadJson = toCanonicalJson(payload);
    // Validate what will be stored (no `undefined` members), not the caller's object.
    const stored = JSON.parse(payloadJson) as unknown;
    const { valid, errors } = await this.validate(type, stored);
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
    const bytes = nodeBytes(type, payloadJson);
    const refs = collectRefs(await this.#schema(type), stored).filter((ref) => ref !== type);
    return { hash: hashBytes(bytes), bytes, type, refs: [type, ...refs] };
  }

  prepareText(text: string): CasWrite {
    // The text schema is `{ type: "string" }`: checking it here keeps ajv out of the process.
    if (typeof text !== "string") throw new UwfError("NODE_INVALID", "a text node holds a string");
    const type = this.builtin("text");
    const bytes = nodeBytes(type, JSON.stringify(text));
    return { hash: hashBytes(bytes), bytes, type, refs: [type] };
  }

  /** Write nodes, with any built-in schema node this process has not written yet. */
  async writeAll(nodes: readonly CasWrite[]): Promise<Set<string>> {
    const all = [...nodes];
    for (const kind of this.#pendingBuiltins) {
      if (nodes.some((node) => node.refs[0] === BUILTIN_HASHES[kind])) {
        const builtin = builtinSchemaNode(kind);
        all.unshift({ hash: builtin.hash, bytes: builtin.bytes, type: SCHEMA_TYPE, refs: [] });
        this.#pendingBuiltins.delete(kind);
      }
    }
    if (all.length === 0) return new Set();
    return this.backend.write(all);
  }

  corrupt(hash: string, problem: string): UwfError {
    const where = this.backend.locate(hash);
    return new UwfError("CAS_CORRUPT", `${where}: ${problem}`, {
      hint: `${VERIFY_HINT}; restore it from a backup, or delete it if nothing needs it`,
      details: { hash, file: where },
    });
  }

  /**
   * The JSON Schema at `hash` (a built-in kind's own without a read), read once per Cas: the
   * validator made for it later reads no file again.
   */
  schema(hash: string): Promise<JsonSchema> {
    return this.#schema(hash);
  }

  async #schema(hash: string): Promise<JsonSchema> {
    let schema = this.#schemas.get(hash);
    if (schema === undefined) {
      const builtin = builtinKindOf(hash);
      if (builtin !== null) {
        schema = builtinSchemaNode(builtin).schema;
      } else {
        const node = await this.get(hash);
        if (node.type !== SCHEMA_TYPE) {
          throw new UwfError(
            "NODE_INVALID",
            `node ${hash} is ${describeType(node.type)}, not a schema`,
            { details: { hash } },
          );
        }
        schema = node.payload as JsonSchema;
      }
      this.#schemas.set(hash, schema);
    }
    return schema;
  }

  /** The hashes a node already read points to (see `refs`), without reading it again. */
  refsOf(node: CasNode): Promise<string[]> {
    return this.#refsOf(node);
  }

  async #refsOf(node: CasNode): Promise<string[]> {
    if (node.type === SCHEMA_TYPE) return [];
    const refs = collectRefs(await this.#schema(node.type), node.payload);
    return [node.type, ...refs.filter((ref) => ref !== node.type)];
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
