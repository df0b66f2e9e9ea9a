import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  utimesSync,
} from "node:fs";
import { join } from "node:path";
import { isHash } from "@united-workforce/protocol";
import { hashBytes } from "@united-workforce/util";
import {
  codeOf,
  DIR_MODE,
  isMissing,
  listNames,
  unlinkQuietly,
  writeNewFile,
} from "../fs/files.js";
import type { CasBackend, CasStray, CasWrite } from "./cas-backend.js";

const TEMP_PREFIX = ".tmp-";
let tempCounter = 0;

/**
 * Nodes as files: `<casDir>/<first 2 chars>/<hash>.json`. A new file is written completely to
 * a temp file and hard-linked into place, so it appears whole and only once; a concurrent writer
 * of the same hash sees EEXIST and does nothing. Types and refs are not recorded: the file is
 * the node, and gc reads the (few) reachable nodes to follow their refs.
 */
export function createFsCasBackend(casDir: string): CasBackend {
  const shardOf = (hash: string) => join(casDir, hash.slice(0, 2));
  const fileOf = (hash: string) => join(shardOf(hash), `${hash}.json`);

  return {
    async read(hash) {
      try {
        return readFileSync(fileOf(hash));
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async write(nodes) {
      const created = new Set<string>();
      for (const node of nodes) {
        if (writeNodeFile(shardOf(node.hash), fileOf(node.hash), node)) created.add(node.hash);
      }
      return created;
    },
    async has(hash) {
      return existsSync(fileOf(hash));
    },
    async withPrefix(prefix, limit) {
      // Two characters name the shard: one folder listing, never the whole CAS.
      const shards =
        prefix.length >= 2
          ? [prefix.slice(0, 2)]
          : listEntries(casDir)
              .filter((entry) => entry.isDirectory() && entry.name.startsWith(prefix))
              .map((entry) => entry.name);
      const found: string[] = [];
      for (const shard of shards) {
        for (const name of listNames(join(casDir, shard))) {
          const hash = hashOfName(name);
          if (hash?.startsWith(prefix) && hash.startsWith(shard)) found.push(hash);
        }
      }
      return found.sort().slice(0, limit);
    },
    async remove(hashes) {
      for (const hash of hashes) unlinkQuietly(fileOf(hash));
    },
    async *list() {
      for (const shard of listEntries(casDir)) {
        if (!shard.isDirectory()) continue;
        for (const name of listNames(join(casDir, shard.name))) {
          const hash = hashOfName(name);
          if (hash?.startsWith(shard.name)) yield hash;
        }
      }
    },
    locate(hash) {
      return fileOf(hash);
    },
    async writtenAtMs(hashes) {
      const written = new Map<string, number>();
      for (const hash of hashes) {
        try {
          written.set(hash, statSync(fileOf(hash)).mtimeMs);
        } catch {
          // Gone since it was listed: nothing to keep.
        }
      }
      return written;
    },
    async *strays(): AsyncGenerator<CasStray> {
      for (const entry of listEntries(casDir)) {
        const location = join(casDir, entry.name);
        if (!entry.isDirectory()) {
          yield { location, problem: "stray file outside the shard folders" };
          continue;
        }
        for (const name of listNames(location)) {
          const problem = strayProblem(entry.name, name);
          if (problem !== null) yield { location: join(location, name), problem };
        }
      }
    },
  };
}

/**
 * Store one node as `file` in `shard`: true when the file was created (or repaired), false
 * when an intact one was already there.
 */
function writeNodeFile(shard: string, file: string, node: CasWrite): boolean {
  // One read tells whether the node exists and, mostly, whether it is intact: a file with
  // exactly the bytes being written needs no re-hashing. Other bytes are hashed: the file may
  // still be intact (the caller's bytes are then wrong, and must not replace it).
  const existing = readIfPresent(file);
  if (existing !== null) {
    if (existing.equals(node.bytes) || hashBytes(existing) === node.hash) {
      // Content is unchanged, but the node is in use again: gc's grace period restarts.
      touchQuietly(file);
      return false;
    }
    // A truncated or edited file under this name: putting the node again repairs it.
    const temp = writeTemp(shard, node.bytes, file);
    try {
      renameSync(temp, file);
    } catch (error) {
      unlinkQuietly(temp);
      throw error;
    }
    return true;
  }
  const temp = writeTemp(shard, node.bytes, file);
  try {
    linkSync(temp, file);
    return true;
  } catch (error) {
    if (codeOf(error) === "EEXIST") return false;
    // No hard links on this filesystem: a rename is still atomic, and a concurrent writer of
    // the same hash writes the same bytes, so replacing its file loses nothing.
    renameSync(temp, file);
    return true;
  } finally {
    unlinkQuietly(temp);
  }
}

/**
 * Write `bytes` to a new temp file in `shard`, made on first use: a missing shard costs one
 * failed open, where checking for it first cost a mkdir and a stat on every write.
 */
function writeTemp(shard: string, bytes: Uint8Array, target: string): string {
  const temp = join(shard, `${TEMP_PREFIX}${process.pid}-${tempCounter++}`);
  try {
    writeNewFile(temp, bytes, target);
  } catch (error) {
    if (!isMissing(error)) throw error;
    mkdirSync(shard, { recursive: true, mode: DIR_MODE });
    writeNewFile(temp, bytes, target);
  }
  return temp;
}

function readIfPresent(file: string): Buffer | null {
  try {
    return readFileSync(file);
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

function strayProblem(shard: string, name: string): string | null {
  if (name.startsWith(TEMP_PREFIX)) return "temporary file left by an interrupted write";
  const hash = hashOfName(name);
  if (hash === null) return "stray file (not named <hash>.json)";
  if (!hash.startsWith(shard)) return `misplaced: belongs in ${hash.slice(0, 2)}/`;
  return null;
}

function hashOfName(name: string): string | null {
  if (!name.endsWith(".json")) return null;
  const stem = name.slice(0, -".json".length);
  return isHash(stem) ? stem : null;
}

function listEntries(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

function touchQuietly(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch {
    // A read-only store still works; its nodes just keep their first write time.
  }
}
