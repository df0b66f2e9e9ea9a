import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "@united-workforce/util";

/** A model resolved from config.yaml: where to send requests, with which key, which model. */
export interface ModelEndpoint {
  baseUrl: string;
  apiKey: string | null;
  model: string;
}

/** What a preset adds to the agent's command line and environment for a model. */
export interface ModelSetup {
  args: string[];
  env: Record<string, string>;
}

/** How uwf-acp starts and configures one known ACP agent. */
export interface Preset {
  name: string;
  command: string;
  args: string[];
  /** Where the agent comes from, for the "not found" hint. */
  install: string;
  /** Variables of the agent's own login and settings, passed through when set. */
  passEnv: string[];
  /** Always set for this agent (no secrets). */
  env?: Record<string, string>;
  /** The session mode set after the session opens, unless `--mode` names another. */
  mode?: string;
  /**
   * Point the agent at a configured model alias, writing any settings it needs into `stateDir`
   * (owned by uwf-acp, never the user's own config). Absent: the preset cannot be pointed at a
   * provider by uwf.
   */
  model?: (endpoint: ModelEndpoint, stateDir: string) => ModelSetup;
  /** A bare model name (not a configured alias) for the agent's own login. */
  modelName?: (name: string) => ModelSetup;
}

/** The presets `--preset` accepts. */
export const PRESETS: Record<string, Preset> = {
  hermes: {
    name: "hermes",
    command: "hermes",
    args: ["acp"],
    install:
      "Install Hermes Agent (Nous Research): pip install hermes-agent, then run `hermes setup`.",
    passEnv: [
      "HERMES_HOME",
      "OPENROUTER_API_KEY",
      "OPENAI_API_KEY",
      "ANTHROPIC_API_KEY",
      "NOUS_API_KEY",
    ],
  },
  gemini: {
    name: "gemini",
    command: "gemini",
    args: ["--acp"],
    install: "Install Gemini CLI: npm install -g @google/gemini-cli",
    passEnv: [
      "GEMINI_API_KEY",
      "GOOGLE_API_KEY",
      "GOOGLE_CLOUD_PROJECT",
      "GOOGLE_CLOUD_LOCATION",
      "GOOGLE_GENAI_USE_VERTEXAI",
      "GOOGLE_APPLICATION_CREDENTIALS",
      "GOOGLE_GEMINI_BASE_URL",
      "GEMINI_CLI_HOME",
    ],
    // The step's cwd is where uwf was told to work (an untrusted folder makes gemini exit 55);
    // no self-relaunch saves half a second per step.
    env: { GEMINI_CLI_TRUST_WORKSPACE: "true", GEMINI_CLI_NO_RELAUNCH: "true" },
    model: (endpoint, stateDir) => {
      const home = join(stateDir, "gemini-home");
      // Gemini reads its settings from $GEMINI_CLI_HOME/.gemini; sessions live there too, so the
      // directory stays from step to step and session/load finds them.
      writePrivate(join(home, ".gemini", "settings.json"), {
        security: {
          auth: { selectedType: "gemini-api-key" },
          // Gemini gives its shell commands its whole environment: the key stays its own. On,
          // the redaction also drops other secret-looking names from the commands' environment.
          environmentVariableRedaction: { enabled: true, blocked: ["GEMINI_API_KEY"] },
        },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true, maxAttempts: 1 },
      });
      return {
        args: ["-m", endpoint.model],
        env: {
          GEMINI_CLI_HOME: home,
          GOOGLE_GEMINI_BASE_URL: endpoint.baseUrl.replace(/\/v1(beta)?$/, ""),
          ...(endpoint.apiKey ? { GEMINI_API_KEY: endpoint.apiKey } : {}),
        },
      };
    },
    modelName: (name) => ({ args: ["-m", name], env: {} }),
  },
  opencode: {
    name: "opencode",
    command: "opencode",
    args: ["acp"],
    install: "Install opencode: npm install -g opencode-ai",
    passEnv: [
      "OPENCODE_CONFIG",
      "OPENCODE_CONFIG_CONTENT",
      "OPENAI_API_KEY",
      "ANTHROPIC_API_KEY",
      "OPENROUTER_API_KEY",
    ],
    model: (endpoint) => ({
      args: [],
      env: {
        OPENCODE_CONFIG_CONTENT: JSON.stringify({
          model: `uwf/${endpoint.model}`,
          small_model: `uwf/${endpoint.model}`,
          autoupdate: false,
          share: "disabled",
          provider: {
            uwf: {
              npm: "@ai-sdk/openai-compatible",
              name: "uwf",
              options: { baseURL: endpoint.baseUrl, apiKey: "{env:UWF_ACP_API_KEY}" },
              models: { [endpoint.model]: { name: endpoint.model, tool_call: true } },
            },
          },
        }),
        OPENCODE_DISABLE_AUTOUPDATE: "true",
        OPENCODE_DISABLE_MODELS_FETCH: "true",
        ...(endpoint.apiKey ? { UWF_ACP_API_KEY: endpoint.apiKey } : {}),
      },
    }),
  },
  claude: {
    name: "claude",
    command: "claude-agent-acp",
    args: [],
    install:
      "Install the Claude Code ACP agent: npm install -g @agentclientprotocol/claude-agent-acp",
    passEnv: [
      "ANTHROPIC_API_KEY",
      "ANTHROPIC_AUTH_TOKEN",
      "ANTHROPIC_BASE_URL",
      "ANTHROPIC_MODEL",
      "CLAUDE_CONFIG_DIR",
      "CLAUDE_CODE_EXECUTABLE",
      "CLAUDE_CODE_USE_BEDROCK",
      "CLAUDE_CODE_USE_VERTEX",
    ],
    // A side request after every turn asks the model to guess the user's next prompt.
    env: { CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION: "false" },
    // It starts in `auto`, which writes unasked and puts a notice into the answer text.
    mode: "acceptEdits",
    model: (endpoint, stateDir) => {
      const configDir = join(stateDir, "claude-config");
      // Sessions live in CLAUDE_CONFIG_DIR too, so it stays from step to step and session/load
      // finds them. Starting in acceptEdits (not auto) keeps a notice about auto mode out of the
      // answer before uwf-acp could set the mode.
      writePrivate(join(configDir, "settings.json"), {
        permissions: { defaultMode: "acceptEdits" },
      });
      return {
        args: [],
        env: {
          CLAUDE_CONFIG_DIR: configDir,
          ANTHROPIC_BASE_URL: endpoint.baseUrl.replace(/\/v1$/, ""),
          ANTHROPIC_MODEL: endpoint.model,
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          // A failing provider fails the step at once; uwf suspends the thread with the reason.
          CLAUDE_CODE_MAX_RETRIES: "0",
          // Against a base URL it does not know, Claude Code answers a 400 by sending the same
          // request again without each experimental beta (tool search included), up to 8 in
          // all: the provider's error would be hidden behind a burst of requests.
          CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS: "1",
          ENABLE_TOOL_SEARCH: "false",
          ...(endpoint.apiKey ? { ANTHROPIC_API_KEY: endpoint.apiKey } : {}),
        },
      };
    },
    modelName: (name) => ({ args: [], env: { ANTHROPIC_MODEL: name } }),
  },
  codex: {
    name: "codex",
    command: "codex-acp",
    args: [],
    install: "Install the Codex ACP agent: npm install -g @agentclientprotocol/codex-acp",
    passEnv: ["OPENAI_API_KEY", "CODEX_HOME", "CODEX_PATH"],
    model: (endpoint, stateDir) => {
      const home = join(stateDir, "codex-home");
      writePrivateText(
        join(home, "config.toml"),
        [
          `model = ${tomlString(endpoint.model)}`,
          'model_provider = "uwf"',
          "check_for_update_on_startup = false",
          // No calls anywhere but the model: no plugin sync, analytics or metrics.
          "[features]",
          "plugins = false",
          "[analytics]",
          "enabled = false",
          "[otel]",
          'metrics_exporter = "none"',
          // Codex gives the model's commands its whole environment: the key stays codex's own.
          "[shell_environment_policy]",
          'exclude = ["UWF_ACP_API_KEY"]',
          "[model_providers.uwf]",
          'name = "uwf"',
          `base_url = ${tomlString(endpoint.baseUrl)}`,
          'env_key = "UWF_ACP_API_KEY"',
          'wire_api = "responses"',
          // A failing request fails the step at once; retrying is uwf's job (transient failures).
          "request_max_retries = 0",
          "stream_max_retries = 0",
          "",
        ].join("\n"),
      );
      return {
        args: [],
        env: {
          CODEX_HOME: home,
          ...(endpoint.apiKey ? { UWF_ACP_API_KEY: endpoint.apiKey } : {}),
        },
      };
    },
  },
};

export const PRESET_NAMES = Object.keys(PRESETS);

function writePrivate(path: string, value: unknown): void {
  writePrivateText(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** Atomically: another step may be starting the same agent from the same directory. */
function writePrivateText(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileAtomic(path, text, { mode: 0o600 });
}

function tomlString(value: string): string {
  return JSON.stringify(value);
}
