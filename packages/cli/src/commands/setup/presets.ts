import type { ProviderApi } from "@united-workforce/protocol";

/**
 * Providers `uwf setup --provider <name>` knows: the base URL as the provider's SDK takes it,
 * the wire protocol, and the variable its key usually lives in. For a provider based in China,
 * `<name>` is its mainland endpoint and `<name>-intl` its international one. Where each URL
 * was read is in docs/decisions/setup-and-doctor.md.
 */
export interface ProviderPreset {
  name: string;
  label: string;
  baseUrl: string;
  api: ProviderApi;
  /** Where the key is read from when neither --api-key nor --api-key-env is given. */
  apiKeyEnv: string | null;
}

export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  preset("openai", "OpenAI", "https://api.openai.com/v1", "OPENAI_API_KEY"),
  preset("anthropic", "Anthropic", "https://api.anthropic.com", "ANTHROPIC_API_KEY", "anthropic"),
  preset(
    "gemini",
    "Google Gemini",
    "https://generativelanguage.googleapis.com",
    "GEMINI_API_KEY",
    "gemini",
  ),
  preset("xai", "xAI (Grok)", "https://api.x.ai/v1", "XAI_API_KEY"),
  preset("openrouter", "OpenRouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
  preset("venice", "Venice AI", "https://api.venice.ai/api/v1", "VENICE_API_KEY"),
  preset(
    "dashscope",
    "Alibaba DashScope (Qwen), China",
    "https://dashscope.aliyuncs.com/compatible-mode/v1",
    "DASHSCOPE_API_KEY",
  ),
  preset(
    "dashscope-intl",
    "Alibaba DashScope (Qwen), international",
    "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
    "DASHSCOPE_API_KEY",
  ),
  preset("deepseek", "DeepSeek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"),
  preset(
    "siliconflow",
    "SiliconFlow, China",
    "https://api.siliconflow.cn/v1",
    "SILICONFLOW_API_KEY",
  ),
  preset(
    "siliconflow-intl",
    "SiliconFlow, international",
    "https://api.siliconflow.com/v1",
    "SILICONFLOW_API_KEY",
  ),
  preset(
    "volcengine",
    "Volcengine Ark (Doubao)",
    "https://ark.cn-beijing.volces.com/api/v3",
    "ARK_API_KEY",
  ),
  preset("kimi", "Moonshot Kimi, China", "https://api.moonshot.cn/v1", "MOONSHOT_API_KEY"),
  preset(
    "kimi-intl",
    "Moonshot Kimi, international",
    "https://api.moonshot.ai/v1",
    "MOONSHOT_API_KEY",
  ),
  preset(
    "glm",
    "Zhipu GLM (BigModel), China",
    "https://open.bigmodel.cn/api/paas/v4",
    "ZHIPUAI_API_KEY",
  ),
  preset("glm-intl", "Z.ai GLM, international", "https://api.z.ai/api/paas/v4", "ZAI_API_KEY"),
  preset("stepfun", "StepFun, China", "https://api.stepfun.com/v1", "STEPFUN_API_KEY"),
  preset("stepfun-intl", "StepFun, international", "https://api.stepfun.ai/v1", "STEPFUN_API_KEY"),
  preset("minimax", "MiniMax, China", "https://api.minimaxi.com/v1", "MINIMAX_API_KEY"),
  preset("minimax-intl", "MiniMax, international", "https://api.minimax.io/v1", "MINIMAX_API_KEY"),
  // 127.0.0.1, not localhost: Node may resolve localhost to ::1, where Ollama does not listen.
  preset("ollama", "Ollama (local)", "http://127.0.0.1:11434/v1", null),
];

function preset(
  name: string,
  label: string,
  baseUrl: string,
  apiKeyEnv: string | null,
  api: ProviderApi = "openai-chat",
): ProviderPreset {
  return { name, label, baseUrl, api, apiKeyEnv };
}

export function findProviderPreset(name: string): ProviderPreset | undefined {
  return PROVIDER_PRESETS.find((p) => p.name === name);
}

/**
 * Adapters `uwf setup --agent <name>` and `uwf doctor` know: the command to configure, the agent
 * CLI it drives (checked on PATH too), how to install both, and the wire protocols the agent
 * can be pointed at (a model on another one is configured with a warning).
 */
export interface AgentPreset {
  alias: string;
  label: string;
  command: string;
  args: readonly string[];
  /** The agent CLI the adapter runs, or null when it needs none. */
  cli: string | null;
  install: string;
  apis: readonly ProviderApi[];
  /**
   * What the adapter's `--model` takes: a model alias from config.yaml, `required` when it
   * cannot run without one (no login of its own; defaultModel counts), `alias-or-name` when a
   * name that is no alias goes to the agent as its own model name; null when it takes none.
   */
  model: "alias" | "required" | "alias-or-name" | null;
}

export const AGENT_PRESETS: readonly AgentPreset[] = [
  {
    alias: "claude-code",
    label: "Claude Code",
    command: "uwf-claude-code",
    args: [],
    cli: "claude",
    install: "npm i -g @united-workforce/agent-claude-code @anthropic-ai/claude-code",
    apis: ["anthropic"],
    model: "alias",
  },
  {
    alias: "codex",
    label: "OpenAI Codex",
    command: "uwf-codex",
    args: [],
    cli: "codex",
    install: "npm i -g @united-workforce/agent-codex @openai/codex",
    apis: ["openai-responses", "openai-chat"],
    model: "alias",
  },
  {
    alias: "builtin",
    label: "uwf's built-in agent (any OpenAI-compatible model)",
    command: "uwf-builtin",
    args: [],
    cli: null,
    install: "npm i -g @united-workforce/agent-builtin",
    apis: ["openai-chat"],
    model: "required",
  },
  {
    alias: "gemini",
    label: "Gemini CLI over ACP",
    command: "uwf-acp",
    args: ["--preset", "gemini"],
    cli: "gemini",
    install: "npm i -g @united-workforce/agent-acp @google/gemini-cli",
    apis: ["gemini"],
    model: "alias-or-name",
  },
  {
    alias: "opencode",
    label: "opencode over ACP",
    command: "uwf-acp",
    args: ["--preset", "opencode"],
    cli: "opencode",
    install: "npm i -g @united-workforce/agent-acp opencode-ai",
    apis: ["openai-chat"],
    model: "alias",
  },
  {
    alias: "claude-acp",
    label: "Claude over ACP (claude-agent-acp)",
    command: "uwf-acp",
    args: ["--preset", "claude"],
    cli: "claude-agent-acp",
    install: "npm i -g @united-workforce/agent-acp @agentclientprotocol/claude-agent-acp",
    apis: ["anthropic"],
    model: "alias-or-name",
  },
  {
    alias: "hermes",
    label: "Hermes Agent over ACP",
    command: "uwf-hermes",
    args: [],
    cli: "hermes",
    install: "npm i -g @united-workforce/agent-acp && pip install 'hermes-agent[acp]'",
    apis: ["openai-chat", "anthropic"],
    model: "alias",
  },
  {
    alias: "mock",
    label: "uwf-mock (scripted replies, for tests)",
    command: "uwf-mock",
    args: [],
    cli: null,
    install: "npm i -g @united-workforce/agent-mock",
    apis: [],
    model: null,
  },
];

/**
 * The preset a command line runs: `uwf-claude-code`, or `uwf-acp --preset gemini …` (the
 * preset's own args first). Null for any other command.
 */
export function presetForCommand(command: string, args: readonly string[]): AgentPreset | null {
  const base = command.split("/").pop() ?? command;
  let best: AgentPreset | null = null;
  for (const agent of AGENT_PRESETS) {
    if (agent.command !== base) continue;
    if (!agent.args.every((arg, i) => args[i] === arg)) continue;
    if (best === null || agent.args.length > best.args.length) best = agent;
  }
  return best;
}

/**
 * What an agent preset still needs after `npm run install-cli`, which installs every adapter:
 * its install command without our packages (the agent CLI it drives), or null when nothing.
 */
export function agentCliInstall(install: string): string | null {
  const parts = install.split(" && ").flatMap((part) => {
    if (!part.startsWith("npm i -g ")) return [part];
    const others = part
      .slice("npm i -g ".length)
      .split(" ")
      .filter((name) => !name.startsWith("@united-workforce/"));
    return others.length > 0 ? [`npm i -g ${others.join(" ")}`] : [];
  });
  return parts.length > 0 ? parts.join(" && ") : null;
}

/**
 * How to get a preset's adapter: until the packages are published, `npm run install-cli` in a
 * checkout of uwf installs every adapter at once.
 */
export function adapterInstall(install: string): string {
  return `\`npm run install-cli\` in a checkout of uwf installs every adapter (once uwf is published: \`${install}\`)`;
}
