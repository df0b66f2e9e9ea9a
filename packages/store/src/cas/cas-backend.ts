/**
 * What a CAS backend implements (the filesystem in fs-backend.ts, PostgreSQL in its own
 * package): bytes under a hash. The CAS layer (cas.ts) hashes, validates and parses on top;
 * `Store.cas` (api.ts) is that layer.
 */

/** One node to store: its bytes, with the type and refs the CAS layer computed from them. */
export interface CasWrite {
  hash: string;
  bytes: Uint8Array;
  /** The node's `type` (a schema hash, or "schema"). */
  type: string;
  /** The hashes its payload points to (schema node first), so gc can mark without parsing. */
  refs: readonly string[];
}

/** Something in a backend's storage that is not a well-placed node (only `verify` asks). */
export interface CasStray {
  /** Human-readable location, like `locate` gives for a node. */
  location: string;
  problem: string;
}

/** Where node bytes live. The CAS layer hashes, verifies and parses; a backend stores bytes. */
export interface CasBackend {
  read(hash: string): Promise<Uint8Array | null>;
  /**
   * Several nodes at once, with the nodes each of `refsOf` points to (one level, by its
   * recorded refs), in one round trip; absent nodes are left out. Optional: a store without a
   * round trip per read (the filesystem) leaves it out and is read node by node.
   */
  readMany?(hashes: readonly string[], refsOf: readonly string[]): Promise<Map<string, Uint8Array>>;
  /**
   * Every stored node reachable from `roots` by recorded refs (the roots included), with its
   * recorded refs, in one round trip and without the nodes' bytes; absent nodes are left out.
   * Optional: a store without it (the filesystem) is walked by reading each node.
   */
  reachableRefs?(roots: readonly string[]): Promise<Map<string, readonly string[]>>;
  /**
   * The chains from each of `heads` in one round trip: from a node, the next is the node it
   * refers to whose type is in `through` (a step's `prev`), at most `length` nodes a chain;
   * with every node those reach not through another `through` node (a step's output, body,
   * detail and its turns, prompt, schemas, start), by recorded refs. Absent nodes are left out.
   * Optional, like `readMany`: a walk over a store without it reads node by node.
   */
  readChains?(
    heads: readonly string[],
    through: readonly string[],
    length: number,
  ): Promise<Map<string, Uint8Array>>;
  /**
   * Store nodes; an existing hash is a no-op unless its stored bytes no longer hash to it, in
   * which case they are replaced (a repair). Every write is complete or absent, never partial.
   * Returns the hashes that were newly created.
   */
  write(nodes: readonly CasWrite[]): Promise<Set<string>>;
  has(hash: string): Promise<boolean>;
  /**
   * Stored hashes that start with `prefix` (upper-case Base32, at least one character), sorted,
   * at most `limit`. Looks only where such hashes can be (one shard folder, an index range).
   */
  withPrefix(prefix: string, limit: number): Promise<string[]>;
  remove(hashes: readonly string[]): Promise<void>;
  /** Every stored hash (verify and gc only). */
  list(): AsyncIterable<string>;
  /**
   * The refs recorded at write time of each of `hashes` that is stored (absent ones are left
   * out), and of the nodes they reach, breadth first, up to `upTo` nodes in all, in one round
   * trip; throws CAS_CORRUPT for a node whose bytes no longer match its hash. Absent when this
   * backend does not record refs (gc then parses the nodes).
   */
  recordedRefs?(hashes: readonly string[], upTo?: number): Promise<Map<string, readonly string[]>>;
  /** Human-readable location for messages (a file path, or `postgres:…/cas_nodes/<hash>`). */
  locate(hash: string): string;
  /** Leftovers that are not nodes: temp files, misplaced files, rows that are not nodes. */
  strays?(): AsyncIterable<CasStray>;
  /**
   * When each of `hashes` was last written (a write of an existing hash counts), in one round
   * trip; unknown and absent ones are left out. gc keeps recent nodes: a writer may not have
   * linked them to a pointer yet.
   */
  writtenAtMs?(hashes: readonly string[]): Promise<Map<string, number>>;
}
