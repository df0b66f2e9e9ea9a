import type { DocumentOf } from "@united-workforce/protocol";
import type { CasWrite, Store } from "@united-workforce/store";
import { hashBytes, UwfError } from "@united-workforce/util";

export type StoreMigrateDocument = DocumentOf<"store migrate">;

/** Nodes are copied in batches: one write round trip per batch on a networked target. */
const BATCH = 500;

/**
 * Copy everything one store holds into another (filesystem ↔ PostgreSQL): every node, re-hashed
 * when read and again as the target stored it; every thread pointer; every registry entry with
 * its history. Running it again copies only what is missing. It refuses while an exec runs on
 * the source (its nodes and pointer are changing) and never overwrites a different thread or
 * registry entry in the target (THREAD_EXISTS, STORE_CONFLICT). Leases are not copied.
 */
export async function migrateStore(
  from: Store,
  to: Store,
  onProgress: (line: string) => void = () => {},
): Promise<StoreMigrateDocument> {
  await refuseUnlessAtRest(from, to);
  const copied = await copyNodes(from, to, onProgress);
  const threads = await copyThreads(from, to);
  const workflows = await copyRegistry(from, to);
  return { from: from.location, to: to.location, ...copied, ...threads, ...workflows };
}

/** A copy into the store itself, or out of one whose threads are running, is refused. */
async function refuseUnlessAtRest(from: Store, to: Store): Promise<void> {
  if (from.location === to.location && from.kind === to.kind) {
    throw new UwfError("USAGE", `the source and the target are the same store (${to.location})`, {
      hint: "pass --to the store to copy into: `fs` or a postgres:// URL",
    });
  }
  const running = await from.leases.live();
  if (running.size > 0) {
    const [first] = running;
    throw new UwfError(
      "THREAD_BUSY",
      `${running.size} thread${running.size === 1 ? " is" : "s are"} running in ${from.location}; copy a store at rest`,
      { hint: `wait with \`uwf thread join ${first}\`, then run the migration again` },
    );
  }
}

/** Every node, re-hashed when read and checked again as the target stored it, in batches. */
async function copyNodes(
  from: Store,
  to: Store,
  onProgress: (line: string) => void,
): Promise<{ nodes: number; nodesWritten: number }> {
  let nodes = 0;
  let nodesWritten = 0;
  let batch: CasWrite[] = [];
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const created = await to.cas.backend.write(batch);
    nodesWritten += created.size;
    for (const node of batch) await checkCopied(to, node.hash);
    batch = [];
    onProgress(`copied ${nodes} nodes`);
  };
  for await (const hash of from.cas.backend.list()) {
    const bytes = await from.cas.backend.read(hash);
    if (bytes === null) continue; // removed while listing (a gc): nothing to copy
    if (hashBytes(bytes) !== hash) throw from.cas.corrupt(hash, "its bytes do not hash to it");
    const node = await from.cas.get(hash);
    const refs = node.type === "schema" ? [] : await from.cas.refs(hash);
    batch.push({ hash, bytes, type: node.type, refs });
    nodes++;
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  return { nodes, nodesWritten };
}

/** Every thread pointer; one the target already holds alike is skipped, a different one refused. */
async function copyThreads(
  from: Store,
  to: Store,
): Promise<{ threads: number; threadsSkipped: number }> {
  let threads = 0;
  let threadsSkipped = 0;
  for await (const item of from.threads.all()) {
    if (item.pointer === null) {
      throw new UwfError(
        "THREAD_CORRUPT",
        `${from.threads.locate(item.id)}: ${item.problem}; nothing after it was copied`,
        { hint: "fix or remove that pointer, then run the migration again (it resumes)" },
      );
    }
    threads++;
    const { rev: _rev, ...pointer } = item.pointer;
    if (await to.threads.exists(item.id)) {
      const { rev: _theirs, ...existing } = await to.threads.get(item.id);
      if (JSON.stringify(existing) === JSON.stringify(pointer)) {
        threadsSkipped++;
        continue;
      }
      throw new UwfError(
        "THREAD_EXISTS",
        `the target already has a different thread ${item.id}; it was left as it is`,
        { hint: "fork what you need from one of them, or remove the target's copy by hand" },
      );
    }
    await to.threads.create(pointer);
  }
  return { threads, threadsSkipped };
}

/** Every registry entry with its history; refused when one cannot be read. */
async function copyRegistry(
  from: Store,
  to: Store,
): Promise<{ workflows: number; workflowsSkipped: number }> {
  const { entries, problems } = await from.registry.scan();
  const [problem] = problems;
  if (problem !== undefined) {
    throw new UwfError("REGISTRY_CORRUPT", `${problem.location}: ${problem.problem}`, {
      hint: "fix or remove that registry entry, then run the migration again (it resumes)",
    });
  }
  let workflowsSkipped = 0;
  for (const entry of entries) {
    if (!(await to.registry.restore(entry))) workflowsSkipped++;
  }
  return { workflows: entries.length, workflowsSkipped };
}

/** Read a copied node back from the target and check it still hashes to its name. */
async function checkCopied(to: Store, hash: string): Promise<void> {
  const bytes = await to.cas.backend.read(hash);
  if (bytes === null || hashBytes(bytes) !== hash) {
    throw new UwfError("CAS_CORRUPT", `${to.cas.backend.locate(hash)}: the copy does not verify`, {
      hint: "the target did not store what was sent; check its disk or server, then run again",
      details: { hash },
    });
  }
}
