import { mkdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, resolve as resolvePath } from "node:path";
import {
  CONFIG_SCHEMA,
  DEFAULT_PROVIDER_API,
  isPlainObject,
  type ProviderApi,
  STORE_CONFIG_PROPERTIES,
} from "@united-workforce/protocol";
import { docsUrl, errorMessage, UwfError, writeFileAtomic } from "@united-workforce/util";
import { stringify as stringifyYaml } from "yaml";
import { checkConfig } from "./check.js";
import { forgetParsedConfig, readParsedConfig, writeParsedConfig } from "./parsed-cache.js";
import { type SchemaLike, schemaProblems } from "./schema-check.js";
import { configDocumentValue, FIX_BY_HAND_HINT, parseConfigDocument } from "./yaml.js";

export interface ProviderConfig {
  /** The wire protocol; `openai-chat` when absent. */
  api?: ProviderApi;
  baseUrl: string;
  apiKey?: string;
  apiKeyEnv?: string;
}
export interface ModelConfig {
  provider: string;
  name: string;
}
export interface AgentConfig {
  command: string;
  args?: string[];
  /** A model alias (`models:`), passed to the adapter as `--model <alias>`. */
  model?: string;
  timeoutSeconds?: number;
  /** Variables added to the adapter's environment. */
  env?: Record<string, string>;
}
/** `config.yaml` (DESIGN §11). Unknown keys are kept on write, so other tools' keys survive. */
export interface UwfConfig {
  providers?: Record<string, ProviderConfig>;
  models?: Record<string, ModelConfig>;
  agents?: Record<string, AgentConfig>;
  defaultAgent?: string;
  defaultModel?: string;
  agentOverrides?: Record<string, Record<string, string>>;
  modelOverrides?: { extract?: string; [key: string]: string | undefined };
  /** Budgets per workflow name (a run suspends its thread when it reaches one). */
  limits?: Record<string, RunLimits>;
  /** How steps whose agent failed transiently are retried (see `retryPolicy`). */
  retry?: Partial<RetryPolicy> | null;
  /** Where threads' git worktrees go (`worktrees.dir`, relative to the repository's top). */
  worktrees?: { dir?: string };
  /** `fs` (default) or a `postgres://` URL; `UWF_STORE` overrides it. */
  store?: string;
  /** This machine's name in exec leases (default: the host name). */
  host?: string;
  /** How long an exec lease lives without renewal. */
  leaseSeconds?: number;
  [key: string]: unknown;
}

/** What one exec or resume run may spend before its thread suspends for a human to decide. */
export interface RunLimits {
  maxCostUsd?: number;
  maxSteps?: number;
}

/** The budget of a workflow's runs from config.yaml (`limits.<workflow>`); empty when none. */
export function workflowLimits(config: UwfConfig, workflow: string): RunLimits {
  const limits = config.limits?.[workflow];
  if (limits === null || typeof limits !== "object") return {};
  const out: RunLimits = {};
  if (typeof limits.maxCostUsd === "number") out.maxCostUsd = limits.maxCostUsd;
  if (typeof limits.maxSteps === "number") out.maxSteps = limits.maxSteps;
  return out;
}

/** How a transient agent failure (adapter exit 75) is retried before the thread suspends. */
export interface RetryPolicy {
  /** Retries within one exec run; 0 suspends at the first transient failure. */
  maxRetries: number;
  /** The wait before the first retry, doubled for each next one. */
  delaySeconds: number;
  /** The longest wait between two tries. */
  maxDelaySeconds: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  maxRetries: 3,
  delaySeconds: 10,
  maxDelaySeconds: 600,
};

/** config.yaml's `retry`, each key not set taking its default. */
export function retryPolicy(config: UwfConfig): RetryPolicy {
  const retry = config.retry;
  const out = { ...DEFAULT_RETRY_POLICY };
  if (retry === null || typeof retry !== "object") return out;
  if (typeof retry.maxRetries === "number") out.maxRetries = retry.maxRetries;
  if (typeof retry.delaySeconds === "number") out.delaySeconds = retry.delaySeconds;
  if (typeof retry.maxDelaySeconds === "number") out.maxDelaySeconds = retry.maxDelaySeconds;
  return out;
}

/** A config read from its file, with what looked odd in it (unknown keys), for the CLI to say. */
export interface LoadedConfig {
  file: string;
  config: UwfConfig;
  /** Each names the key; the CLI adds the file. */
  warnings: string[];
}

export function configPath(home: string): string {
  return join(home, "config.yaml");
}

/** The config, or `{}` when there is none. A file that does not parse is an error naming it. */
export function readConfig(home: string): UwfConfig {
  return loadConfig(home).config;
}

/**
 * The config with its warnings (keys uwf does not know). Refused, naming the file and every
 * key at fault: a file that is not a YAML mapping, a wrongly typed value, a name that points
 * at nothing configured (an agent's model, a model's provider, defaultModel).
 */
export function loadConfig(home: string): LoadedConfig {
  const file = configPath(home);
  const data = readConfigData(file, home);
  if (data === null) return { file, config: {}, warnings: [] };
  const { errors, warnings } = checkConfig(data);
  if (errors.length > 0) throw configInvalid(file, errors);
  return { file, config: withoutEmptyKeys(data), warnings };
}

/**
 * Only the keys that say where the store is (`store`, `host`, `leaseSeconds`), checked on their
 * own: a mistake elsewhere in config.yaml (an agent alias) must not stop `thread show` or
 * `thread list` from reading the store; the commands that use those keys report it.
 */
export function readStoreConfig(home: string): UwfConfig {
  const file = configPath(home);
  const data = readConfigData(file, home);
  if (data === null) return {};
  const schema = { type: "object", properties: STORE_CONFIG_PROPERTIES } as unknown as SchemaLike;
  const problems = schemaProblems(schema, data);
  if (problems.length > 0) throw configInvalid(file, problems);
  const config = withoutEmptyKeys(data);
  const picked: UwfConfig = {};
  for (const key of Object.keys(STORE_CONFIG_PROPERTIES)) {
    if (config[key] !== undefined) picked[key] = config[key];
  }
  return picked;
}

/**
 * The parsed mapping in `file`, or null when there is none (no file, or an empty one). With
 * `home` (whose config.yaml `file` is), the value is kept in `<home>/cache/config.json` for
 * the next process while the file's text stays the same (parsed-cache.ts).
 */
export function readConfigData(file: string, home?: string): Record<string, unknown> | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      if (home !== undefined) forgetParsedConfig(home);
      return null;
    }
    throw new UwfError("CONFIG_INVALID", `cannot read ${file}: ${errorMessage(error)}`, {
      hint: "Check the file's permissions (it should be yours, mode 0600).",
    });
  }
  if (home !== undefined) {
    const cached = readParsedConfig(home, text);
    if (cached !== undefined) return cached;
  }
  const data = configDocumentValue(file, parseConfigDocument(file, text));
  if (data === null || data === undefined) return null;
  if (!isPlainObject(data)) {
    throw new UwfError("CONFIG_INVALID", `${file} must be a YAML mapping`, {
      hint: FIX_BY_HAND_HINT,
    });
  }
  if (home !== undefined) writeParsedConfig(home, text, data as Record<string, unknown>);
  return data as Record<string, unknown>;
}

export function configInvalid(file: string, errors: string[]): UwfError {
  return new UwfError("CONFIG_INVALID", `${file} is invalid:\n  ${errors.join("\n  ")}`, {
    hint: `Fix these keys in ${file} (uwf config set <key> <value> checks a change before writing it); ${docsUrl("config.md")} shows the expected shape.`,
    details: { file, errors },
  });
}

/** A key left empty (`agents:`) means "not set", so callers see it absent. */
function withoutEmptyKeys(data: Record<string, unknown>): UwfConfig {
  const config = data as UwfConfig;
  for (const key of Object.keys(CONFIG_SCHEMA.properties))
    if (config[key] === null) delete config[key];
  return config;
}

/** Write the config atomically with mode 0600: it may hold API keys. */
export function writeConfig(home: string, config: UwfConfig): void {
  writeConfigText(configPath(home), stringifyYaml(config));
}

/**
 * Replace config.yaml's text atomically with mode 0600 (it may hold API keys). A config.yaml
 * that is a symbolic link (kept with one's dotfiles) is written through: the new text goes
 * next to the link's target and replaces it, and the link stays a link.
 */
export function writeConfigText(file: string, text: string): void {
  const target = linkTarget(file);
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  writeFileAtomic(target, text, { mode: 0o600 });
}

/** The file a path names once every link on the way is followed; the path itself if none. */
function linkTarget(file: string): string {
  try {
    return realpathSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  // No file there, or a link to a file not made yet: that file is the one to create.
  try {
    return resolvePath(dirname(file), readlinkSync(file));
  } catch {
    return file;
  }
}

/** Where a model alias is served, as an adapter or a check needs it. */
export interface ResolvedModel {
  /** The provider's name under `providers`. */
  provider: string;
  /** The provider's wire protocol (`openai-chat` when it does not say). */
  api: ProviderApi;
  /** Without a trailing slash. */
  baseUrl: string;
  apiKey: string | null;
  model: string;
}

/** Endpoint, protocol, key and model name for a model alias. The key may come from the environment. */
export function resolveModel(
  config: UwfConfig,
  alias: string,
  env: Record<string, string | undefined>,
): ResolvedModel {
  const model = config.models?.[alias];
  if (!model) {
    const known = Object.keys(config.models ?? {});
    throw new UwfError("CONFIG_INVALID", `unknown model alias "${alias}"`, {
      hint: known.length
        ? `Known models: ${known.join(", ")}`
        : "Add one under `models:` in config.yaml.",
    });
  }
  const provider = config.providers?.[model.provider];
  if (!provider) {
    throw new UwfError(
      "CONFIG_INVALID",
      `model "${alias}" names provider "${model.provider}", which is not configured`,
      { hint: "Add it under `providers:` in config.yaml." },
    );
  }
  // An empty variable is as good as none: it is how a key is usually "unset" in a shell.
  const fromEnv = provider.apiKeyEnv ? env[provider.apiKeyEnv] : undefined;
  const apiKey = provider.apiKey ?? (fromEnv ? fromEnv : null);
  return {
    provider: model.provider,
    api: provider.api ?? DEFAULT_PROVIDER_API,
    baseUrl: provider.baseUrl.replace(/\/+$/, ""),
    apiKey,
    model: model.name,
  };
}

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
   * command made absolute (so it means the same from any directory).
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
 * resolves against `callerCwd` (where the user typed it), and a command line given with
 * `--agent` must be runnable now, so a typo fails before the thread is touched.
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
    args: words.slice(1),
    timeoutSeconds: null,
    model: null,
    env: {},
    source,
    choice: command === words[0] ? choice : replaceFirstWord(choice, command),
  };
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

/** `line` with its first word replaced by `word`, quoted so `splitCommand` reads it back. */
function replaceFirstWord(line: string, word: string): string {
  const first = commandWords(line)[0];
  return `${quoteWord(word)}${first === undefined ? "" : line.slice(first.end)}`;
}

/** `word` as one word of a command line: bare when it can be, else in single quotes. */
function quoteWord(word: string): string {
  if (word !== "" && !/[\s"'\\]/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Split a command line into words as a POSIX shell would, without running one: whitespace
 * separates words; single quotes keep everything inside; double quotes keep everything but a
 * backslash before `"` or `\`; outside quotes a backslash keeps the next character; quoted and
 * bare parts join into one word (`--x="a b"` is `--x=a b`). No expansion of any kind.
 */
export function splitCommand(line: string): string[] {
  return commandWords(line).map(({ word }) => word);
}

function commandWords(line: string): { word: string; end: number }[] {
  const words: { word: string; end: number }[] = [];
  let word: string | null = null;
  let i = 0;
  const unclosed = (quote: string) =>
    new UwfError("USAGE", `the command line ${JSON.stringify(line)} has an unclosed ${quote}`, {
      hint: "Close the quote, or escape it with a backslash.",
    });
  while (i < line.length) {
    const c = line[i]!;
    if (/\s/.test(c)) {
      if (word !== null) words.push({ word, end: i });
      word = null;
      i++;
    } else if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) throw unclosed("'");
      word = (word ?? "") + line.slice(i + 1, close);
      i = close + 1;
    } else if (c === '"') {
      let text = "";
      for (i++; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === "\\" && (line[i + 1] === '"' || line[i + 1] === "\\")) i++;
        text += line[i];
      }
      if (i >= line.length) throw unclosed('"');
      word = (word ?? "") + text;
      i++;
    } else if (c === "\\" && i + 1 < line.length) {
      word = (word ?? "") + line[i + 1];
      i += 2;
    } else {
      word = (word ?? "") + c;
      i++;
    }
  }
  if (word !== null) words.push({ word, end: line.length });
  return words;
}
