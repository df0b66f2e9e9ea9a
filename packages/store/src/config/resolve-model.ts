import { DEFAULT_PROVIDER_API, type ProviderApi } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import type { UwfConfig } from "./config.js";

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
