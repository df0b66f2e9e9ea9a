import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

/**
 * The storage root: `UWF_HOME`, else `~/.uwf`. Takes the environment as an argument so that
 * only the CLI entry and `createAgent` decide which environment counts.
 */
export function resolveHome(env: Record<string, string | undefined>): string {
  const fromEnv = env.UWF_HOME?.trim();
  if (fromEnv) return isAbsolute(fromEnv) ? fromEnv : resolve(fromEnv);
  return join(homedir(), ".uwf");
}
