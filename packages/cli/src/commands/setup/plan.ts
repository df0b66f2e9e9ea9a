import { isAbsolute, resolve } from "node:path";
import type { ProviderApi } from "@united-workforce/protocol";
import {
  type ConfigFile,
  deleteConfigValue,
  getConfigValue,
  setConfigValue,
  splitCommand,
} from "@united-workforce/store";
import { docsUrl, UwfError } from "@united-workforce/util";
import {
  AGENT_PRESETS,
  type AgentPreset,
  findProviderPreset,
  PROVIDER_PRESETS,
  presetForCommand,
} from "./presets.js";

/** What `uwf setup` was asked to configure, by flags or by answers. */
export interface SetupRequest {
  provider?: string | undefined;
  baseUrl?: string | undefined;
  api?: ProviderApi | undefined;
  apiKey?: string | undefined;
  apiKeyEnv?: string | undefined;
  model?: string | undefined;
  modelAlias?: string | undefined;
  agent?: string | undefined;
  agentAlias?: string | undefined;
}

/** What was written, for the checks and the report. */
export interface SetupOutcome {
  provider: string | null;
  modelAlias: string | null;
  agentAlias: string | null;
  /** The agent's command and args as configured (null when no agent was set up). */
  agent: { command: string; args: string[] } | null;
  /** Things worth saying that are not failures (a model on a protocol the agent may not speak). */
  notes: string[];
}

/**
 * Write the request into the config: `providers.<p>`, `models.<alias>` and `defaultModel`,
 * `agents.<alias>` and `defaultAgent`, field by field, so keys already there that setup does
 * not own stay. Presets fill what was not given. Nothing is saved here.
 */
export function applySetup(config: ConfigFile, request: SetupRequest, cwd: string): SetupOutcome {
  const outcome: SetupOutcome = {
    provider: null,
    modelAlias: null,
    agentAlias: null,
    agent: null,
    notes: [],
  };
  if (request.model !== undefined && request.provider === undefined) {
    throw usage("--model needs --provider (the provider that serves it)");
  }
  if (request.provider !== undefined) {
    if (request.model === undefined) {
      throw usage("--provider needs --model (the model's name at that provider)");
    }
    if (request.apiKey !== undefined && request.apiKeyEnv !== undefined) {
      throw usage("give --api-key or --api-key-env, not both");
    }
    setProvider(config, request.provider, request);
    const alias = request.modelAlias ?? request.provider;
    setConfigValue(config, ["models", alias, "provider"], request.provider);
    setConfigValue(config, ["models", alias, "name"], request.model);
    setConfigValue(config, ["defaultModel"], alias);
    outcome.provider = request.provider;
    outcome.modelAlias = alias;
  }
  if (request.agent !== undefined) {
    const { alias, preset, note } = setAgent(config, request.agent, request.agentAlias, cwd);
    if (note !== null) outcome.notes.push(note);
    if (outcome.modelAlias !== null) {
      setConfigValue(config, ["agents", alias, "model"], outcome.modelAlias);
      const api = (getConfigValue(config, ["providers", outcome.provider!, "api"]) ??
        "openai-chat") as ProviderApi;
      if (preset && preset.apis.length > 0 && !preset.apis.includes(api)) {
        outcome.notes.push(
          `${preset.label} talks to ${preset.apis.join(" or ")} endpoints, and provider ${outcome.provider} is ${api}: the agent may fail to reach the model (pass --api if the provider offers ${preset.apis[0]}).`,
        );
      }
    }
    setConfigValue(config, ["defaultAgent"], alias);
    outcome.agentAlias = alias;
    outcome.agent = {
      command: getConfigValue(config, ["agents", alias, "command"]) as string,
      args: (getConfigValue(config, ["agents", alias, "args"]) ?? []) as string[],
    };
  }
  if (outcome.provider === null && outcome.agentAlias === null) {
    throw usage("nothing to set up: pass --provider and --model, --agent, or both");
  }
  return outcome;
}

function setProvider(config: ConfigFile, name: string, request: SetupRequest): void {
  const preset = findProviderPreset(name);
  const at = (key: string) => ["providers", name, key];
  const existing = getConfigValue(config, ["providers", name]) as
    | Record<string, unknown>
    | undefined;
  const baseUrl = request.baseUrl ?? preset?.baseUrl ?? (existing?.baseUrl as string | undefined);
  if (baseUrl === undefined) {
    throw new UwfError("USAGE", `"${name}" is not a provider preset, so it needs --base-url`, {
      hint: `Presets: ${PROVIDER_PRESETS.map((p) => p.name).join(", ")}. For another provider pass --base-url (and --api when it is not openai-chat).`,
    });
  }
  setConfigValue(config, at("baseUrl"), baseUrl);
  const api = request.api ?? preset?.api;
  if (api !== undefined) setConfigValue(config, at("api"), api);
  if (request.apiKey !== undefined) {
    setConfigValue(config, at("apiKey"), request.apiKey);
    deleteConfigValue(config, at("apiKeyEnv"));
  } else if (request.apiKeyEnv !== undefined) {
    setConfigValue(config, at("apiKeyEnv"), request.apiKeyEnv);
    deleteConfigValue(config, at("apiKey"));
  } else if (existing?.apiKey === undefined && existing?.apiKeyEnv === undefined) {
    if (preset?.apiKeyEnv) setConfigValue(config, at("apiKeyEnv"), preset.apiKeyEnv);
  }
}

/**
 * `--agent` is a configured alias (kept as it is), a preset alias (`claude-code`), an adapter
 * command uwf knows (`uwf-claude-code`, `uwf-acp --preset gemini`), or any other command line,
 * whose relative path is made absolute against the caller's directory. An agent CLI a preset
 * drives (`claude`) is no adapter: alone it means that preset, with a note; as a path or with
 * arguments it is refused, since they would be the CLI's and not the adapter's.
 */
function setAgent(
  config: ConfigFile,
  word: string,
  aliasFlag: string | undefined,
  cwd: string,
): { alias: string; preset: AgentPreset | null; note: string | null } {
  const configured = getConfigValue(config, ["agents", word]) as { command?: string } | undefined;
  if (configured?.command !== undefined && aliasFlag === undefined) {
    const preset = presetForCommand(
      configured.command,
      (getConfigValue(config, ["agents", word, "args"]) ?? []) as string[],
    );
    return { alias: word, preset, note: null };
  }
  let byAlias = AGENT_PRESETS.find((p) => p.alias === word);
  let note: string | null = null;
  if (!byAlias) {
    const drives = presetDriving(word);
    if (drives?.exact) {
      byAlias = drives.preset;
      note = `${word} is the agent CLI that ${drives.preset.command} drives: configured the adapter, ${drives.preset.alias}.`;
    } else if (drives) {
      throw new UwfError(
        "USAGE",
        `"${word}" runs ${drives.preset.cli}, the agent CLI itself, which does not speak uwf's adapter protocol: did you mean --agent ${drives.preset.alias}?`,
        {
          hint: `--agent ${drives.preset.alias} configures ${[drives.preset.command, ...drives.preset.args].join(" ")}, which drives ${drives.preset.cli}; its options go in agents.<alias>.args (${docsUrl("agents.md")} lists them).`,
        },
      );
    }
  }
  let command: string;
  let args: string[];
  let preset: AgentPreset | null;
  if (byAlias) {
    preset = byAlias;
    command = byAlias.command;
    args = [...byAlias.args];
  } else {
    const parts = splitCommand(word);
    if (parts.length === 0) throw usage("--agent is empty");
    command = parts[0]!;
    args = parts.slice(1);
    if (command.includes("/") && !isAbsolute(command)) command = resolve(cwd, command);
    preset = presetForCommand(command, args);
  }
  const alias = aliasFlag ?? preset?.alias ?? aliasFromCommand(command);
  setConfigValue(config, ["agents", alias, "command"], command);
  if (args.length > 0) setConfigValue(config, ["agents", alias, "args"], args);
  else deleteConfigValue(config, ["agents", alias, "args"]);
  return { alias, preset, note };
}

/**
 * The preset whose agent CLI a command line runs (`claude`, `/usr/bin/claude -p`), and
 * whether it is that bare name alone.
 */
function presetDriving(word: string): { preset: AgentPreset; exact: boolean } | null {
  const parts = splitCommand(word);
  const base = parts[0]?.split("/").pop();
  const preset = AGENT_PRESETS.find((p) => p.cli !== null && p.cli === base);
  return preset ? { preset, exact: parts.length === 1 && parts[0] === base } : null;
}

/** `./bin/my-agent.sh` → `my-agent`; `uwf-review` → `review`. */
function aliasFromCommand(command: string): string {
  const base = (command.split("/").pop() ?? command).replace(/\.[^.]+$/, "").replace(/^uwf-/, "");
  const alias = base.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "");
  return alias === "" ? "agent" : alias;
}

function usage(message: string): UwfError {
  return new UwfError("USAGE", message, {
    hint: "e.g. uwf setup --provider openrouter --model anthropic/claude-sonnet-4.5 --agent builtin (uwf setup --help lists every option)",
  });
}
