import type { CasGcDocument } from "@united-workforce/protocol";
import type { CasBackend } from "./backend.js";
import { BUILTIN_KINDS, builtinSchemaNode } from "./builtins.js";

export interface GcGraph {
  backend: CasBackend;
  /** Hashes a node refers to; throws when the node is missing or corrupt. */
  refs(hash: string): string[];
}

/**
 * Mark everything reachable from the roots, then sweep the rest. A missing or unreadable node
 * on the way aborts the whole collection (refs throws): its refs are unknown, and guessing
 * would delete what it points to.
 *
 * Only nodes stored before the roots were read can be swept: the store is listed first, and
 * roots given as a function are read after that, so a node written meanwhile (by a process
 * that has not moved its pointer yet) is never deleted. Nodes written within `keepRecentMs`
 * are kept too: a writer such as `thread start` stores nodes a moment before its pointer.
 */
export function collectGarbage(
  graph: GcGraph,
  roots: readonly string[] | (() => readonly string[]),
  options: { dryRun: boolean; keepRecentMs?: number; nowMs?: number },
): CasGcDocument {
  const cutoff = (options.nowMs ?? Date.now()) - (options.keepRecentMs ?? 0);
  const stored = [...graph.backend.list()];
  const rootList = typeof roots === "function" ? roots() : roots;
  const reachable = new Set<string>();
  const queue = [...new Set(rootList)];
  for (const root of queue) reachable.add(root);
  while (queue.length > 0) {
    const hash = queue.pop()!;
    for (const ref of graph.refs(hash)) {
      if (reachable.has(ref)) continue;
      reachable.add(ref);
      queue.push(ref);
    }
  }
  // Built-in schemas are the vocabulary of every store: always kept, referenced or not.
  for (const kind of BUILTIN_KINDS) reachable.add(builtinSchemaNode(kind).hash);

  const unreachable: string[] = [];
  const recent: string[] = [];
  let bytes = 0;
  let deleted = 0;
  let kept = 0;
  for (const hash of stored) {
    if (reachable.has(hash)) {
      kept++;
      continue;
    }
    const writtenAt = options.keepRecentMs ? graph.backend.writtenAtMs?.(hash) : null;
    if (writtenAt != null && writtenAt > cutoff) {
      recent.push(hash);
      continue;
    }
    unreachable.push(hash);
    bytes += graph.backend.read(hash)?.length ?? 0;
    if (!options.dryRun) {
      graph.backend.remove(hash);
      deleted++;
    }
  }
  unreachable.sort();
  recent.sort();
  return {
    dryRun: options.dryRun,
    roots: new Set(rootList).size,
    reachable: kept,
    unreachable,
    deleted,
    bytes,
    recent,
  };
}
