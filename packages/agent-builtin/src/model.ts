import type { AgentContext } from "@united-workforce/agent-kit";
import { readConfig, resolveModel } from "@united-workforce/store";
import { UwfError } from "@united-workforce/util";

export interface Endpoint {
  alias: string;
  provider: string;
  baseUrl: string;
  apiKey: string | null;
  /** The model's name at the provider. */
  model: string;
}

/**
 * The model to talk to: `--model <alias>` (uwf passes an agent's configured `model` this way),
 * else config.yaml's `defaultModel`, resolved through `models.<alias>` → `providers.<p>`.
 */
export function resolveEndpoint(ctx: AgentContext): Endpoint {
  const config = readConfig(ctx.home);
  const flag = ctx.options.model;
  const alias = typeof flag === "string" && flag !== "" ? flag : config.defaultModel;
  if (!alias) {
    throw new UwfError(
      "CONFIG_INVALID",
      "uwf-builtin has no model to talk to: pass --model <alias>, or set defaultModel in $UWF_HOME/config.yaml",
      {
        hint: "Configure an OpenAI-compatible provider and a model, e.g. `providers: { openai: { baseUrl: https://api.openai.com/v1, apiKeyEnv: OPENAI_API_KEY } }`, `models: { gpt: { provider: openai, name: gpt-5 } }`, then `defaultModel: gpt` or `agents.<agent>.args: [--model, gpt]`.",
      },
    );
  }
  const { api, ...model } = resolveModel(config, alias, ctx.env);
  if (api !== "openai-chat") {
    throw new UwfError(
      "CONFIG_INVALID",
      `uwf-builtin speaks OpenAI chat completions, but model "${alias}" is served by provider "${model.provider}" with api: ${api}`,
      {
        hint: `Give uwf-builtin a model whose provider has \`api: openai-chat\` (the default) in $UWF_HOME/config.yaml, or run this model with an adapter that speaks ${api}.`,
      },
    );
  }
  return { alias, ...model };
}
