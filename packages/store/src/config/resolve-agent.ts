import { existsSync } from "node:fs";
import { isAbsolute, resolve as resolvePath } from "node:path";
import { UwfError } from "@united-workforce/util";
import { joinCommand, replaceFirstWord, splitCommand } from "./command-line.js";
import type { AgentConfig, UwfConfig } from "./config.js";

export interface ResolvedAgent {
  alias: string | null;
  command: string;
  args: string[];
  timeoutSeconds: number | null;
  /** The agent's `model` alias, passed to the adapter as `--model <alias>`. */
  model: string | null;
  /** The agent's `env`, added to the adapter's environment. */
  env: Record<string, string>;
  /** Where the choice came from. */
  source: AgentSource;
  /**
   * The choice as a thread remembers it: the alias, or the command line with a relative
   * command and relative path arguments made absolute (so it means the same from any
   * directory).
   */
  choice: string;
}

export type AgentSource = "flag" | "remembered" | "override" | "default";

/**
 * Which agent runs a role: `--agent` → the agent the thread remembers (its last `--agent`) →
 * `agentOverrides[workflow][role]` → `defaultAgent`. A configured alias resolves to its
 * command. Any other value is a command line: one with a space or a path separator is taken
 * as it is; a single word must be a command `isRunnable` finds on PATH, else it is an unknown
 * alias and the error lists the known ones. A relative command path given with `--agent`
 * resolves against `callerCwd` (where the user typed it), and so does a relative path among its
 * arguments (`absoluteArgument`); a command line given with `--agent` must be runnable now, so
 * a typo fails before the thread is touched.
 */
export function resolveAgent(
  config: UwfConfig,
  options: {
    flag?: string | undefined;
    remembered?: string | undefined;
    workflow: string;
    role: string;
    /** The caller's directory, for a relative command path in `flag`. */
    callerCwd?: string;
    /** Whether a command (a bare name looked up on PATH, or an absolute path) can be run. */
    isRunnable?: (command: string) => boolean;
  },
): ResolvedAgent | null {
  const agents = config.agents ?? {};
  const picked = pickChoice(config, options);
  if (!picked) return null;
  const { source, choice } = picked;
  const configured = Object.hasOwn(agents, choice) ? agents[choice] : undefined;
  if (configured) {
    return {
      alias: choice,
      command: configured.command,
      args: configured.args ?? [],
      timeoutSeconds: configured.timeoutSeconds ?? null,
      model: configured.model ?? null,
      env: stringEntries(configured.env),
      source,
      choice,
    };
  }
  const words = splitCommand(choice);
  let command = words[0];
  if (command === undefined) {
    throw new UwfError("USAGE", `${sourceLabel(picked, options)} is empty`, {
      hint: 'Name an agent alias or a command, e.g. --agent "uwf-mock --scenario s.yaml".',
    });
  }
  const isPath = command.includes("/");
  if (source === "flag" && isPath && !isAbsolute(command) && options.callerCwd)
    command = resolvePath(options.callerCwd, command);
  const typed = words.slice(1);
  const { callerCwd } = options;
  const args =
    source === "flag" && callerCwd ? typed.map((word) => absoluteArgument(word, callerCwd)) : typed;
  const argsChanged = args.some((arg, i) => arg !== typed[i]);
  const isCommandLine = /[\s/]/.test(choice);
  // A single word is a command only when it is on PATH; a command line typed just now with
  // --agent must run now too. Others are checked when spawned (a failure suspends the thread).
  if (!isCommandLine || source === "flag") {
    const runnable = options.isRunnable?.(command) ?? (isCommandLine ? true : undefined);
    if (runnable !== true) {
      const missing =
        runnable === undefined
          ? null
          : isPath
            ? `"${command}" not found or not executable`
            : `"${command}" not found in PATH`;
      const message = isCommandLine
        ? `cannot run ${sourceLabel(picked, options)}: ${missing}`
        : `unknown agent "${choice}"${sourceNote(picked, options)}: it is not an agent alias in config.yaml${missing ? `, and ${missing}` : ""}`;
      throw new UwfError("AGENT_UNKNOWN", message, { hint: knownAgentsHint(agents, source) });
    }
  }
  return {
    alias: null,
    command,
    args,
    timeoutSeconds: null,
    model: null,
    env: {},
    source,
    choice: argsChanged
      ? joinCommand([command, ...args])
      : command === words[0]
        ? choice
        : replaceFirstWord(choice, command),
  };
}

/**
 * An argument of a command line typed with `--agent`, with a relative path in it made absolute
 * against the caller's directory: a word (or the value of `--name=value`) that looks like a
 * path (a `/` in it, a leading `.`, or a file extension) and names an existing file or folder
 * there. The step runs in the thread's cwd, and a remembered agent from wherever the next
 * command runs: both must find the file the user meant. Other words stay as typed.
 */
export function absoluteArgument(word: string, callerCwd: string): string {
  const eq = word.startsWith("--") ? word.indexOf("=") : -1;
  const prefix = eq === -1 ? "" : word.slice(0, eq + 1);
  const value = word.slice(prefix.length);
  if (value === "" || value.startsWith("-") || isAbsolute(value)) return word;
  if (!/\/|^\.|\.[A-Za-z0-9]+$/.test(value)) return word;
  const path = resolvePath(callerCwd, value);
  return existsSync(path) ? `${prefix}${path}` : word;
}

function pickChoice(
  config: UwfConfig,
  options: {
    flag?: string | undefined;
    remembered?: string | undefined;
    workflow: string;
    role: string;
  },
): { source: AgentSource; choice: string } | null {
  if (options.flag !== undefined) return { source: "flag", choice: options.flag };
  if (options.remembered !== undefined) return { source: "remembered", choice: options.remembered };
  const override = config.agentOverrides?.[options.workflow]?.[options.role];
  if (override !== undefined) return { source: "override", choice: override };
  if (config.defaultAgent !== undefined) return { source: "default", choice: config.defaultAgent };
  return null;
}

function sourceLabel(
  picked: { source: AgentSource; choice: string },
  options: { workflow: string; role: string },
): string {
  switch (picked.source) {
    case "flag":
      return `--agent "${picked.choice}"`;
    case "remembered":
      return `the agent this thread remembers ("${picked.choice}", from an earlier --agent)`;
    case "override":
      return `agentOverrides.${options.workflow}.${options.role} ("${picked.choice}") in config.yaml`;
    case "default":
      return `defaultAgent ("${picked.choice}") in config.yaml`;
  }
}

/** Where a rejected single word came from, unless the user just typed it. */
function sourceNote(
  picked: { source: AgentSource; choice: string },
  options: { workflow: string; role: string },
): string {
  switch (picked.source) {
    case "flag":
      return "";
    case "remembered":
      return " (remembered by this thread from an earlier --agent)";
    case "override":
      return ` (from agentOverrides.${options.workflow}.${options.role} in config.yaml)`;
    case "default":
      return " (from defaultAgent in config.yaml)";
  }
}

function knownAgentsHint(agents: Record<string, AgentConfig>, source: AgentSource): string {
  const known = Object.keys(agents);
  const list = known.length
    ? `Known agents: ${known.join(", ")}.`
    : "No agents are configured (`agents:` in config.yaml).";
  const other =
    source === "flag" || source === "remembered"
      ? 'Pass another --agent: an alias, a command on PATH, or a path (e.g. --agent ./my-agent, --agent "uwf-mock --scenario s.yaml").'
      : "Fix config.yaml, or pass --agent with an alias, a command on PATH or a path.";
  return `${list} ${other}`;
}

/** Only string values: a config value of another type never reaches an environment. */
function stringEntries(env: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env ?? {}))
    if (typeof value === "string") out[name] = value;
  return out;
}
