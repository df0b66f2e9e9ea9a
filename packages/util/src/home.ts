import { mkdirSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { nodeOs } from "./builtin.js";
import { ioError } from "./fs/io-error.js";

/**
 * Modes for what uwf creates under the storage root: transcripts, prompts, logs and keys are
 * for their owner only. The umask can only take bits away from these.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * The storage root: `UWF_HOME`, else `~/.uwf`. Takes the environment as an argument so that
 * only the CLI entry and `createAgent` decide which environment counts.
 */
export function resolveHome(env: Record<string, string | undefined>): string {
  const fromEnv = env.UWF_HOME?.trim();
  if (fromEnv) return isAbsolute(fromEnv) ? fromEnv : resolve(fromEnv);
  return join(nodeOs().homedir(), ".uwf");
}

/**
 * Create a folder (and any missing parents) for its owner only. A folder that exists is left
 * as it is: its owner may have opened it on purpose.
 */
export function makePrivateDir(path: string): void {
  try {
    mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
  } catch (error) {
    throw ioError(error, path);
  }
}
