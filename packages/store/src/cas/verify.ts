import type { CasVerifyDocument } from "@united-workforce/protocol";
import { errorMessage, hashBytes } from "@united-workforce/util";
import { builtinKindOf } from "./builtins.js";
import type { CasBackend } from "./cas-backend.js";
import { decodeNode } from "./node-codec.js";

/**
 * Re-hash every stored node and report what is wrong, file by file. Never throws for a bad
 * file: a store that is damaged is exactly when this report is needed.
 */
export async function verifyBackend(backend: CasBackend): Promise<CasVerifyDocument> {
  const report: CasVerifyDocument = { checked: 0, ok: 0, corrupt: [] };
  const types = new Map<string, string>();
  for await (const hash of backend.list()) {
    report.checked++;
    const problem = await checkNode(backend, hash, types);
    if (problem === null) report.ok++;
    else report.corrupt.push({ hash, file: backend.locate(hash), problem });
  }
  // A node whose schema node is gone can no longer be validated or have its refs followed.
  for (const [hash, type] of types) {
    if (!(await backend.has(type)) && builtinKindOf(type) === null) {
      report.corrupt.push({
        hash,
        file: backend.locate(hash),
        problem: `its schema node ${type} is missing`,
      });
      report.ok--;
    }
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

async function checkNode(
  backend: CasBackend,
  hash: string,
  types: Map<string, string>,
): Promise<string | null> {
  let bytes: Uint8Array | null;
  try {
    bytes = await backend.read(hash);
  } catch (error) {
    return `cannot be read: ${errorMessage(error)}`;
  }
  if (bytes === null) return "disappeared while verifying";
  const actual = hashBytes(bytes);
  if (actual !== hash) return `content does not match its name (it hashes to ${actual})`;
  const decoded = decodeNode(bytes);
  if ("problem" in decoded) return decoded.problem;
  if (decoded.node.type !== "schema") types.set(hash, decoded.node.type);
  return null;
}

async function* emptyStrays(): AsyncGenerator<never> {}
