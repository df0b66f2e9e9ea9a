import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, runUwf, type TempHome } from "@united-workforce/test-utils";
import { stringify } from "yaml";

export const UWF_ACP_BIN = join(REPO_ROOT, "packages/agent-acp/bin/uwf-acp.cjs");

export function requireBuilt(): void {
  for (const file of [
    "packages/agent-acp/dist/bundle/main.cjs",
    "packages/cli/dist/bundle/main.cjs",
  ]) {
    if (!existsSync(join(REPO_ROOT, file)))
      throw new Error(`${file} is missing: run \`pnpm build\` first`);
  }
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
