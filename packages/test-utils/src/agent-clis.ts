import { accessSync, constants, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TEMP_PREFIX } from "./home.js";
import { REPO_ROOT } from "./run.js";

export type AgentCliName =
  | "claude"
  | "claude-agent-acp"
  | "codex"
  | "codex-acp"
  | "gemini"
  | "opencode";

/**
 * Where the pinned agent CLIs are: `UWF_AGENT_CLIS_DIR` (a directory holding
 * `node_modules/.bin`), else `<repo>/test/agent-clis`, which `npm test` fills
 * (scripts/agent-clis.mjs).
 */
export function agentClisDir(env: Record<string, string | undefined> = process.env): string {
  return env.UWF_AGENT_CLIS_DIR || join(REPO_ROOT, "test", "agent-clis");
}

/**
 * The path of a pinned agent CLI. A missing one throws, so a test that needs it fails instead
 * of skipping: the test command installs them.
 */
export function agentCliPath(
  name: AgentCliName,
  env: Record<string, string | undefined> = process.env,
): string {
  const dir = agentClisDir(env);
  const path = join(dir, "node_modules", ".bin", name);
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new Error(
      `the pinned "${name}" CLI is missing: ${path} does not exist or is not executable. ` +
        "Run `node scripts/agent-clis.mjs` (npm test runs it), or set UWF_AGENT_CLIS_DIR to a " +
        `directory whose node_modules/.bin holds ${name}.`,
    );
  }
  return path;
}

export interface AgentHome {
  /** The temp HOME of the agent CLI. */
  home: string;
  /** HOME, TMPDIR and the XDG dirs, all inside `home`: pass them to the process under test. */
  env: Record<string, string>;
  cleanup: () => void;
}

/**
 * A private HOME for an agent CLI, so a test never reads or writes the developer's `~/.claude`,
 * `~/.codex` or `~/.config` (someone else's login may be there), and files a CLI drops in its
 * temp dir stay in the test's.
 */
export function agentHome(): AgentHome {
  const home = realpathSync(mkdtempSync(join(tmpdir(), `${TEMP_PREFIX}agent-`)));
  const env = {
    HOME: home,
    TMPDIR: join(home, "tmp"),
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local", "state"),
  };
  for (const dir of Object.values(env)) mkdirSync(dir, { recursive: true });
  return { home, env, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}
