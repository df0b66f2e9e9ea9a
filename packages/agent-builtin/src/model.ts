import type { AgentContext } from "@united-workforce/agent-kit";
import { readConfig, resolveModel } from "@united-workforce/store";
import { UwfError } from "@united-workforce/util";

export interface Endpoint {
  alias: string;
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
  return { alias, ...resolveModel(config, alias, ctx.env) };
}
