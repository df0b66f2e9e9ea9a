/** Something in a backend's storage that is not a well-placed node (only `verify` asks). */
export interface CasStray {
  /** Human-readable location, like `locate` gives for a node. */
  location: string;
  problem: string;
}

/**
 * Where node bytes live. The CAS hashes, verifies and parses; a backend only stores bytes under
 * a hash, so another backend can be added without touching callers.
 */
export interface CasBackend {
  read(hash: string): Uint8Array | null;
  /** Store the bytes; false if the hash already existed (a no-op). */
  write(hash: string, bytes: Uint8Array): boolean;
  has(hash: string): boolean;
  remove(hash: string): void;
  /** Every stored hash (only verify and gc use it). */
  list(): Iterable<string>;
  /** Human-readable location for messages (a file path for the filesystem backend). */
  locate(hash: string): string;
  /** Leftovers that are not nodes: temp files, misplaced or unknown files. */
  strays?(): Iterable<CasStray>;
  /**
   * When the node was last written (a write of an existing hash counts), or null if unknown.
   * gc keeps recent nodes: a writer may not have linked them to a pointer yet.
   */
  writtenAtMs?(hash: string): number | null;
}
