import type { CheckResult } from "@united-workforce/protocol";
import { commandVersion, failed, passed, warned } from "./checks.js";
import { presetForCommand } from "./presets.js";

export interface AgentCheckOptions {
  env: Record<string, string | undefined>;
  cwd: string;
  /** Also run `--version` on what is found (doctor does; setup only looks). */
  versions: boolean;
  timeoutMs: number;
  /** Resolve a command as execvp would (the engine's `findExecutable`). */
  findExecutable(command: string, pathEnv: string, cwd: string): string | null;
}

/**
 * One line for the adapter binary and, for an adapter uwf knows, one for the agent CLI it
 * drives (`uwf-claude-code` → `claude`): found on PATH or not, with the install command.
 */
export async function checkAgent(
  alias: string,
  agent: { command: string; args?: readonly string[] },
  options: AgentCheckOptions,
): Promise<CheckResult[]> {
  const preset = presetForCommand(agent.command, agent.args ?? []);
  const install = preset ? `Install it: ${preset.install}` : null;
  const results = [await checkBinary(`agent ${alias}`, agent.command, install, options)];
  if (preset?.cli && results[0]!.ok) {
    results.push(
      await checkBinary(
        `agent ${alias}: ${preset.cli}`,
        preset.cli,
        `${agent.command} drives ${preset.cli}. Install it: ${preset.install}`,
        options,
      ),
    );
  }
  return results;
}

async function checkBinary(
  name: string,
  command: string,
  install: string | null,
  options: AgentCheckOptions,
): Promise<CheckResult> {
  const path = options.findExecutable(command, options.env.PATH ?? "", options.cwd);
  if (path === null) {
    return failed(
      name,
      `"${command}" not found in PATH`,
      install ?? `Install it or check your PATH config. Run: which ${command}`,
    );
  }
  if (!options.versions) return passed(name, `${command} found at ${path}`);
  const { version, problem } = await commandVersion(path, options.env, options.timeoutMs);
  // Found is what counts, but a binary that fails `--version` may be broken: not a plain tick.
  if (problem !== null) {
    return warned(
      name,
      `${path} (${problem})`,
      `It is on PATH but did not answer --version: run \`${path} --version\` to see why.`,
    );
  }
  return passed(name, `${path}${version ? ` (${version})` : ""}`);
}
