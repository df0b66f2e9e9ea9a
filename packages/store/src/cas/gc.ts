import type { CasGcDocument } from "@united-workforce/protocol";
import { BUILTIN_HASHES, BUILTIN_KINDS } from "./builtins.js";
import type { CasBackend } from "./cas-backend.js";

export interface GcGraph {
  backend: CasBackend;
  /** Hashes a node refers to; throws when the node is missing or corrupt. */
  refs(hash: string): Promise<readonly string[]>;
}

/**
 * Mark everything reachable from the roots, then sweep the rest. A missing or unreadable node
 * on the way aborts the whole collection (refs throws): its refs are unknown, and guessing
 * would delete what it points to.
 *
 * Only nodes stored before the roots were read can be swept: the store is listed first, and
 * the roots are read after that, so a node written meanwhile (by a process that has not moved
 * its pointer yet) is never deleted. Nodes written within `keepRecentMs` are kept too: a writer
 * such as `thread start` stores nodes a moment before its pointer.
 */
export async function collectGarbage(
  graph: GcGraph,
  readRoots: () => Promise<readonly string[]>,
  options: { dryRun: boolean; keepRecentMs?: number; nowMs?: number },
): Promise<CasGcDocument> {
  const cutoff = (options.nowMs ?? Date.now()) - (options.keepRecentMs ?? 0);
  const stored: string[] = [];
  for await (const hash of graph.backend.list()) stored.push(hash);
  const rootList = await readRoots();
  const reachable = new Set<string>();
  const mark = async (from: readonly string[]): Promise<void> => {
    const queue = from.filter((hash) => !reachable.has(hash));
    for (const hash of queue) reachable.add(hash);
    while (queue.length > 0) {
      const hash = queue.pop()!;
      for (const ref of await graph.refs(hash)) {
        if (reachable.has(ref)) continue;
        reachable.add(ref);
        queue.push(ref);
      }
    }
  };
  await mark(rootList);
  // Built-in schemas are the vocabulary of every store: always kept, referenced or not.
  for (const kind of BUILTIN_KINDS) reachable.add(BUILTIN_HASHES[kind]);

  // Recent nodes are kept as if they were roots: what they point to must stay readable once
  // their writer links them.
  const recent: string[] = [];
  if (options.keepRecentMs) {
    for (const hash of stored) {
      if (reachable.has(hash)) continue;
      const writtenAt = await graph.backend.writtenAtMs?.(hash);
      if (writtenAt != null && writtenAt > cutoff) recent.push(hash);
    }
  }
  const rootReachable = new Set(reachable);
  await mark(recent);

  const unreachable: string[] = [];
  let bytes = 0;
  let kept = 0;
  for (const hash of stored) {
    if (rootReachable.has(hash)) {
      kept++;
      continue;
    }
    if (reachable.has(hash)) continue;
    unreachable.push(hash);
    bytes += (await graph.backend.read(hash))?.length ?? 0;
  }
  if (!options.dryRun) await graph.backend.remove(unreachable);
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
