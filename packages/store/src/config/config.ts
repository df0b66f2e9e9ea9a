import { mkdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, join, resolve as resolvePath } from "node:path";
import {
  CONFIG_SCHEMA,
  isPlainObject,
  type NotifyMoment,
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
  /** How often a running agent looks for `thread steer` notes (see `steerPollMs`). */
  steer?: { pollSeconds?: number } | null;
  /** Where threads' git worktrees go (`worktrees.dir`, relative to the repository's top). */
  worktrees?: { dir?: string };
  /** Who hears when a thread waits, fails, reaches a budget or completes (`notify:`). */
  notify?: NotifyEntry[] | null;
  /** The web view served to others: its public origin, and how long answer links live. */
  dashboard?: { publicUrl?: string; linkHours?: number } | null;
  /** Secrets of the webhooks `uwf dashboard` accepts (`/hooks/github`). */
  webhooks?: { github?: { secret?: string; secretEnv?: string } } | null;
  /** `fs` (default) or a `postgres://` URL; `UWF_STORE` overrides it. */
  store?: string;
  /** This machine's name in exec leases (default: the host name). */
  host?: string;
  /** How long an exec lease lives without renewal. */
  leaseSeconds?: number;
  [key: string]: unknown;
}

/** One `notify:` entry: a command (argv, no shell) or a webhook URL, for these moments. */
export interface NotifyEntry {
  on: NotifyMoment[];
  command?: string[];
  webhook?: string;
  timeoutSeconds?: number;
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

/** How often a running agent looks for new guidance notes when config.yaml does not say. */
export const DEFAULT_STEER_POLL_SECONDS = 2;

/** config.yaml's `steer.pollSeconds` in milliseconds, or its default. */
export function steerPollMs(config: UwfConfig): number {
  const seconds = config.steer?.pollSeconds;
  return (typeof seconds === "number" && seconds > 0 ? seconds : DEFAULT_STEER_POLL_SECONDS) * 1000;
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
