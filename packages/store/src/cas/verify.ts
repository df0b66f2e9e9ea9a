import type { CasVerifyDocument } from "@united-workforce/protocol";
import { errorMessage, hashBytes } from "@united-workforce/util";
import { builtinKindOf } from "./builtins.js";
import type { CasBackend } from "./cas-backend.js";
import { decodeNode } from "./node-codec.js";

/** Nodes read a round trip at most, and at first; the bytes a batch aims at. */
const MAX_BATCH = 1_000;
const FIRST_BATCH = 100;
const BATCH_BYTES = 8 * 1024 * 1024;

/**
 * Re-hash every stored node and report what is wrong, file by file. Never throws for a bad
 * file: a store that is damaged is exactly when this report is needed.
 *
 * Streams in constant memory: nodes are read in batches (one round trip each where the
 * backend reads many at once), and only the types seen are remembered, not the nodes; the
 * nodes of a type whose schema node is gone (rare) are found by a second pass.
 */
export async function verifyBackend(backend: CasBackend): Promise<CasVerifyDocument> {
  const report: CasVerifyDocument = { checked: 0, ok: 0, corrupt: [] };
  const types = new Set<string>();
  await eachNode(backend, (hash, problem, type) => {
    report.checked++;
    if (problem === null) report.ok++;
    else report.corrupt.push({ hash, file: backend.locate(hash), problem });
    if (type !== null) types.add(type);
  });
  // A node whose schema node is gone can no longer be validated or have its refs followed.
  const lost = new Set<string>();
  for (const type of types) {
    if (!(await backend.has(type)) && builtinKindOf(type) === null) lost.add(type);
  }
  if (lost.size > 0) {
    await eachNode(backend, (hash, problem, type) => {
      if (problem !== null || type === null || !lost.has(type)) return;
      report.corrupt.push({
        hash,
        file: backend.locate(hash),
        problem: `its schema node ${type} is missing`,
      });
      report.ok--;
    });
  }
  for await (const stray of backend.strays?.() ?? emptyStrays()) {
    report.checked++;
    report.corrupt.push({
      hash: stray.location.split(/[\\/]/).pop() ?? "",
      file: stray.location,
      problem: stray.problem,
    });
  }
  report.corrupt.sort((a, b) => a.file.localeCompare(b.file));
  return report;
}

/** What checking a node found: its problem (null: none) and its type (a schema's: null). */
type NodeVisit = (hash: string, problem: string | null, type: string | null) => void;

/** Check every stored node, in batches sized to hold about `BATCH_BYTES` of nodes. */
async function eachNode(backend: CasBackend, visit: NodeVisit): Promise<void> {
  let size = FIRST_BATCH;
  let batch: string[] = [];
  const flush = async () => {
    const bytes = await checkBatch(backend, batch, visit);
    // Nodes of a store are alike in size: the next batch aims at the same bytes.
    size = Math.max(1, Math.min(MAX_BATCH, Math.floor((size * BATCH_BYTES) / Math.max(bytes, 1))));
    batch = [];
  };
  for await (const hash of backend.list()) {
    batch.push(hash);
    if (batch.length >= size) await flush();
  }
  if (batch.length > 0) await flush();
}

/** Check a batch of nodes; returns the bytes read. */
async function checkBatch(
  backend: CasBackend,
  hashes: readonly string[],
  visit: NodeVisit,
): Promise<number> {
  let read: Map<string, Uint8Array> | null = null;
  if (backend.readMany !== undefined) {
    try {
      read = await backend.readMany(hashes, []);
    } catch {
      // Read them one by one below, to tell which one cannot be read.
    }
  }
  let total = 0;
  for (const hash of hashes) {
    let bytes: Uint8Array | null;
    try {
      bytes = read === null ? await backend.read(hash) : (read.get(hash) ?? null);
    } catch (error) {
      visit(hash, `cannot be read: ${errorMessage(error)}`, null);
      continue;
    }
    total += bytes?.length ?? 0;
    const { problem, type } = checkNode(hash, bytes);
    visit(hash, problem, type);
  }
  return total;
}

function checkNode(
  hash: string,
  bytes: Uint8Array | null,
): { problem: string | null; type: string | null } {
  if (bytes === null) return { problem: "disappeared while verifying", type: null };
  const actual = hashBytes(bytes);
  if (actual !== hash) {
    return { problem: `content does not match its name (it hashes to ${actual})`, type: null };
  }
  const decoded = decodeNode(bytes);
  if ("problem" in decoded) return { problem: decoded.problem, type: null };
  return { problem: null, type: decoded.node.type === "schema" ? null : decoded.node.type };
}

async function* emptyStrays(): AsyncGenerator<never> {}
