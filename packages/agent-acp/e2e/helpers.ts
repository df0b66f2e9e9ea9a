import { existsSync, mkdirSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, runUwf, sleep, type TempHome } from "@united-workforce/test-utils";
import { stringify } from "yaml";

export const UWF_ACP_BIN = join(REPO_ROOT, "packages/agent-acp/bin/uwf-acp.js");

/**
 * A pinned real agent CLI: `$UWF_AGENT_CLIS_DIR/node_modules/.bin/<name>` (default
 * `<repo>/test/agent-clis`). Missing is an error that says how to install it, not a skip.
 */
export function agentCliPath(name: string): string {
  const dir = process.env.UWF_AGENT_CLIS_DIR ?? join(REPO_ROOT, "test/agent-clis");
  const path = join(dir, "node_modules/.bin", name);
  if (!existsSync(path)) {
    throw new Error(
      `${path} is missing: install the pinned agent CLIs (cd test/agent-clis && npm ci) or set UWF_AGENT_CLIS_DIR`,
    );
  }
  return path;
}

export function requireBuilt(): void {
  for (const file of [
    "packages/agent-acp/dist/bundle/main.js",
    "packages/cli/dist/bundle/main.js",
  ]) {
    if (!existsSync(join(REPO_ROOT, file)))
      throw new Error(`${file} is missing: run \`pnpm build\` first`);
  }
}

/** Poll until `check` returns a value other than undefined/false, or fail after `timeoutMs`. */
export async function until<T>(
  what: string,
  check: () => T | undefined | false,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(50);
  }
}

/** Pids of the processes whose working directory is `dir` (the agents of one test). */
export function processesIn(dir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/cwd`) === dir) pids.push(Number(name));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return pids;
}

export interface AcpHome {
  home: string;
  /** The thread's working directory (where the agent writes). */
  work: string;
  /** The agent's TMPDIR: Gemini drops error reports there. */
  tmp: string;
  uwf(args: string[], timeoutMs?: number): ReturnType<typeof runUwf>;
}

/** A temp UWF_HOME with config.yaml, the workflow registered, and a work directory. */
export async function acpHome(
  temp: TempHome,
  options: { config: Record<string, unknown>; workflow: Record<string, unknown> },
): Promise<AcpHome> {
  const home = temp.home;
  const work = join(home, "work");
  const tmp = join(home, "tmp");
  mkdirSync(work);
  mkdirSync(tmp);
  writeFileSync(join(home, "config.yaml"), stringify(options.config), { mode: 0o600 });
  const name = String(options.workflow.name);
  writeFileSync(join(home, `${name}.yaml`), stringify(options.workflow));
  const uwf = (args: string[], timeoutMs = 60_000) =>
    runUwf(args, { home, cwd: work, env: { TMPDIR: tmp }, timeoutMs });
  const added = await uwf(["workflow", "add", join(home, `${name}.yaml`)]);
  if (added.code !== 0) throw new Error(`workflow add failed: ${added.stderr}`);
  return { home, work, tmp, uwf };
}
