import {
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { isHash } from "@united-workforce/protocol";
import type { CasBackend, CasStray } from "./backend.js";

const TEMP_PREFIX = ".tmp-";
let tempCounter = 0;

/**
 * Nodes as files: `<casDir>/<first 2 chars>/<hash>.json`. A new file is written to a temp file
 * and hard-linked into place, so it appears complete and only once; a concurrent writer of the
 * same hash sees EEXIST and does nothing.
 */
export function createFsBackend(casDir: string): CasBackend {
  const readyShards = new Set<string>();
  const shardOf = (hash: string) => join(casDir, hash.slice(0, 2));
  const fileOf = (hash: string) => join(shardOf(hash), `${hash}.json`);

  const ensureShard = (hash: string): string => {
    const shard = shardOf(hash);
    if (!readyShards.has(shard)) {
      mkdirSync(shard, { recursive: true });
      readyShards.add(shard);
    }
    return shard;
  };

  return {
    read(hash) {
      try {
        return readFileSync(fileOf(hash));
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    write(hash, bytes) {
      const file = fileOf(hash);
      if (existsSync(file)) {
        // Content is unchanged, but the node is in use again: gc's grace period restarts.
        touchQuietly(file);
        return false;
      }
      const temp = join(ensureShard(hash), `${TEMP_PREFIX}${process.pid}-${tempCounter++}`);
      writeExclusive(temp, bytes);
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
        removeQuietly(temp);
      }
    },
    has(hash) {
      return existsSync(fileOf(hash));
    },
    remove(hash) {
      removeQuietly(fileOf(hash));
    },
    *list() {
      for (const shard of listDir(casDir)) {
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
    writtenAtMs(hash) {
      try {
        return statSync(fileOf(hash)).mtimeMs;
      } catch {
        return null;
      }
    },
    *strays(): Generator<CasStray> {
      for (const entry of listDir(casDir)) {
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

function writeExclusive(path: string, bytes: Uint8Array): void {
  const fd = openSync(path, "wx");
  try {
    writeSync(fd, bytes);
  } catch (error) {
    closeSync(fd);
    removeQuietly(path);
    throw error;
  }
  closeSync(fd);
}

function listDir(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

function listNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

function isMissing(error: unknown): boolean {
  return codeOf(error) === "ENOENT";
}

function touchQuietly(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch {
    // A read-only store still works; its nodes just keep their first write time.
  }
}
