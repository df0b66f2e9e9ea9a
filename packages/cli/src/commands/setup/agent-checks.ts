import { basename, isAbsolute } from "node:path";
import type { CheckResult } from "@united-workforce/protocol";
import { commandVersion, failed, passed, warned } from "./checks.js";
import { AGENT_PRESETS, adapterInstall, agentCliInstall, presetForCommand } from "./presets.js";

export interface AgentCheckOptions {
  env: Record<string, string | undefined>;
  cwd: string;
  /** Also run `--version` on what is found (doctor does; setup only looks). */
  versions: boolean;
  timeoutMs: number;
  /** Resolve a command as execvp would (util's `findExecutable`). */
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
  // An agent CLI configured as the command: found and answering --version, yet every step
  // would fail on the adapter options uwf passes it (`--thread`).
  const cli = basename(agent.command);
  const driven = preset ? undefined : AGENT_PRESETS.find((p) => p.cli !== null && p.cli === cli);
  if (driven !== undefined) {
    return [
      failed(
        `agent ${alias}`,
        `${agent.command} is the ${driven.label} CLI itself, which does not speak uwf's adapter protocol`,
        `uwf runs it through ${[driven.command, ...driven.args].join(" ")}: uwf setup --agent ${driven.alias} --agent-alias ${alias} configures that.`,
      ),
    ];
  }
  const install = preset ? `Install it: ${adapterInstall(preset.install)}` : null;
  const results = [await checkBinary(`agent ${alias}`, agent.command, install, options)];
  if (preset?.cli && results[0]!.ok) {
    results.push(
      await checkBinary(
        `agent ${alias}: ${preset.cli}`,
        preset.cli,
        `${agent.command} drives ${preset.cli}. Install it: ${agentCliInstall(preset.install) ?? preset.install}`,
        options,
      ),
    );
  }
  return results;
}

/**
 * Will the adapter have a model it can use? Only for adapters uwf knows: a `--model` in the
 * agent's args that config.yaml does not define (an agent's `model:` and defaultModel are the
 * config check's), and an adapter that needs a model given none. Null when all is well.
 */
export function checkAgentModel(
  alias: string,
  agent: { command: string; args: readonly string[]; model?: unknown },
  config: { models?: unknown; defaultModel?: unknown },
): CheckResult | null {
  const preset = presetForCommand(agent.command, agent.args);
  if (!preset?.model) return null;
  const models = Object.keys(
    config.models !== null && typeof config.models === "object" ? config.models : {},
  );
  const name = `agent ${alias}: model`;
  const known = models.length > 0 ? `Known models: ${models.join(", ")}.` : "None is configured.";
  // uwf appends the agent's `model:` after its args, and the last --model wins.
  const fromArgs = typeof agent.model === "string" ? null : modelArg(agent.args);
  if (fromArgs !== null && preset.model !== "alias-or-name" && !models.includes(fromArgs)) {
    return failed(
      name,
      `--model ${fromArgs} in its args is not a model in config.yaml`,
      `${known} Add it under models: (with its provider under providers:), or change agents.${alias}.args.`,
    );
  }
  const given = fromArgs ?? agent.model ?? config.defaultModel;
  if (preset.model === "required" && typeof given !== "string") {
    return failed(
      name,
      `${preset.command} needs a model, and has none: no --model in its args, no model:, no defaultModel`,
      `Give it one: uwf config set agents.${alias}.model <alias> (or defaultModel). ${known} uwf setup --provider <p> --model <name> --agent ${preset.alias} writes provider, model and agent.`,
    );
  }
  return null;
}

/** The value of the last `--model <x>` or `--model=<x>` before a `--` (after it: the agent's). */
function modelArg(args: readonly string[]): string | null {
  let model: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") break;
    if (arg === "--model" && i + 1 < args.length) model = args[++i]!;
    else if (arg.startsWith("--model=")) model = arg.slice("--model=".length);
  }
  return model;
}

async function checkBinary(
  name: string,
  command: string,
  install: string | null,
  options: AgentCheckOptions,
): Promise<CheckResult> {
  const path = options.findExecutable(command, options.env.PATH ?? "", options.cwd);
  if (path === null) {
    if (command.includes("/")) {
      // The message says where a relative one was looked for: exec looks in the thread's cwd.
      const { commandNotFound } = await import("@united-workforce/util");
      return failed(name, commandNotFound(command, options.cwd), install ?? "Fix the path.");
    }
    return failed(
      name,
      `"${command}" not found in PATH`,
      install ?? `Install it or check your PATH config. Run: which ${command}`,
    );
  }
  if (command.includes("/") && !isAbsolute(command)) {
    return warned(
      name,
      `${command} found at ${path}, from here`,
      "A relative command is read from each thread's cwd, not from here: give an absolute path, unless every thread runs in this directory.",
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
