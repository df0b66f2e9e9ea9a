import type { CasGcDocument } from "@united-workforce/protocol";
import { BUILTIN_HASHES, BUILTIN_KINDS } from "./builtins.js";
import type { CasBackend } from "./cas-backend.js";
import { PackedHashes } from "./packed-hashes.js";

export interface GcGraph {
  backend: CasBackend;
  /**
   * The hashes each of `hashes` refers to, many nodes a round trip where the backend can, and
   * perhaps those of nodes they reach too (up to `upTo` nodes in all); throws when one of
   * `hashes` is missing or corrupt.
   */
  refs(hashes: readonly string[], upTo: number): Promise<Map<string, readonly string[]>>;
}

/** Nodes one round trip asks about (write times, sizes), and the refs it reads at most. */
const GC_BATCH = 500;
const MARK_REACH = 1_000;

/** A stored node's mark: not reached (yet), reached from a root, reached from a recent node. */
const UNREACHED = 0;
const FROM_ROOT = 1;
const FROM_RECENT = 2;

/**
 * Mark everything reachable from the roots, then sweep the rest. A missing or unreadable node
 * on the way aborts the whole collection (refs throws): its refs are unknown, and guessing
 * would delete what it points to.
 *
 * Only nodes stored before the roots were read can be swept: the store is listed first, and
 * the roots are read after that, so a node written meanwhile (by a process that has not moved
 * its pointer yet) is never deleted. Nodes written within `keepRecentMs` are kept too: a writer
 * such as `thread start` stores nodes a moment before its pointer.
 *
 * Memory: the listing is packed (8 bytes a node, `PackedHashes`) with a mark byte beside each;
 * what is still to be marked is a stack of indexes. Only the report's lists hold strings.
 */
export async function collectGarbage(
  graph: GcGraph,
  readRoots: () => Promise<readonly string[]>,
  options: { dryRun: boolean; keepRecentMs?: number; nowMs?: number },
): Promise<CasGcDocument> {
  const { backend } = graph;
  const cutoff = (options.nowMs ?? Date.now()) - (options.keepRecentMs ?? 0);
  const stored = await PackedHashes.from(backend.list());
  const marks = new Uint8Array(stored.size);
  const rootList = await readRoots();
  const marker = new Marker(graph, stored, marks);
  await marker.mark(rootList, FROM_ROOT);
  // Built-in schemas are the vocabulary of every store: always kept, referenced or not.
  for (const kind of BUILTIN_KINDS) {
    const index = stored.indexOf(BUILTIN_HASHES[kind]);
    if (index >= 0) marks[index] = FROM_ROOT;
  }

  // Recent nodes are kept as if they were roots: what they point to must stay readable once
  // their writer links them.
  const recent: string[] = [];
  if (options.keepRecentMs && backend.writtenAtMs !== undefined) {
    for (const batch of unmarked(stored, marks)) {
      for (const [hash, writtenAt] of await backend.writtenAtMs(batch)) {
        if (writtenAt > cutoff) recent.push(hash);
      }
    }
  }
  await marker.mark(recent, FROM_RECENT);

  const unreachable: string[] = [];
  let bytes = 0;
  let kept = 0;
  for (let index = 0; index < stored.size; index++) if (marks[index] === FROM_ROOT) kept++;
  for (const batch of unmarked(stored, marks)) {
    unreachable.push(...batch);
    bytes += await sizeOf(backend, batch);
  }
  if (!options.dryRun) await backend.remove(unreachable);
  unreachable.sort();
  recent.sort();
  return {
    dryRun: options.dryRun,
    roots: rootList.length,
    reachable: kept,
    unreachable,
    deleted: options.dryRun ? 0 : unreachable.length,
    bytes,
    recent,
  };
}

/** Marks what hashes reach, asking for the refs of many nodes at once. */
class Marker {
  /** Indexes of stored nodes marked but not yet followed. */
  #pending = new Int32Array(1024);
  #pendingCount = 0;
  /** Reached nodes the listing does not hold (written since): few, kept as strings. */
  readonly #unlisted = new Set<string>();
  #unlistedPending: string[] = [];

  constructor(
    private readonly graph: GcGraph,
    private readonly stored: PackedHashes,
    private readonly marks: Uint8Array,
  ) {}

  async mark(from: readonly string[], mark: number): Promise<void> {
    for (const hash of from) this.#reach(hash, mark);
    for (;;) {
      const batch = this.#unlistedPending.splice(0, GC_BATCH);
      while (batch.length < GC_BATCH && this.#pendingCount > 0) {
        batch.push(this.stored.hashAt(this.#pending[--this.#pendingCount]!));
      }
      if (batch.length === 0) return;
      const found = await this.graph.refs(batch, MARK_REACH);
      // Nodes beyond the batch came with their refs: marked here, so not asked about again.
      for (const hash of found.keys()) this.#reach(hash, mark, false);
      for (const refs of found.values()) {
        for (const ref of refs) this.#reach(ref, mark);
      }
    }
  }

  /** Mark `hash`; unless `follow` is false (its refs are in hand), its refs are asked later. */
  #reach(hash: string, mark: number, follow = true): void {
    const index = this.stored.indexOf(hash);
    if (index < 0) {
      if (this.#unlisted.has(hash)) return;
      this.#unlisted.add(hash);
      if (follow) this.#unlistedPending.push(hash);
      return;
    }
    if (this.marks[index] !== UNREACHED) return;
    this.marks[index] = mark;
    if (!follow) return;
    if (this.#pendingCount === this.#pending.length) {
      const grown = new Int32Array(this.#pending.length * 2);
      grown.set(this.#pending);
      this.#pending = grown;
    }
    this.#pending[this.#pendingCount++] = index;
  }
}

/** The stored hashes no mark reached, in batches. */
function* unmarked(stored: PackedHashes, marks: Uint8Array): Generator<string[]> {
  let batch: string[] = [];
  for (let index = 0; index < stored.size; index++) {
    if (marks[index] !== UNREACHED) continue;
    batch.push(stored.hashAt(index));
    if (batch.length === GC_BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** The bytes `hashes` take: read many at a time where the backend can. */
async function sizeOf(backend: CasBackend, hashes: readonly string[]): Promise<number> {
  let bytes = 0;
  if (backend.readMany !== undefined) {
    for (const node of (await backend.readMany(hashes, [])).values()) bytes += node.length;
    return bytes;
  }
  for (const hash of hashes) bytes += (await backend.read(hash))?.length ?? 0;
  return bytes;
}
