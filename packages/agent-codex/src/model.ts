import { readConfig, resolveModel } from "@united-workforce/store";
import { UwfError } from "@united-workforce/util";
import type { CodexModel } from "./command.js";

/** The API codex speaks; a provider that declares another one cannot serve it. */
const CODEX_API = "openai-responses";

/**
 * A model alias from config.yaml, resolved to what codex needs. Codex only speaks the OpenAI
 * Responses API: a provider declaring another `api` is refused here, before codex starts, with
 * an error that says which key to change.
 */
export function resolveCodexModel(
  home: string,
  alias: string,
  env: Record<string, string | undefined>,
): CodexModel {
  const config = readConfig(home);
  const endpoint = resolveModel(config, alias, env);
  const providerName = config.models?.[alias]?.provider ?? "";
  const provider = config.providers?.[providerName] as Record<string, unknown> | undefined;
  const api = provider?.api;
  if (api !== undefined && api !== CODEX_API) {
    throw new UwfError(
      "CONFIG_INVALID",
      `model "${alias}" is served by provider "${providerName}" with api "${String(api)}", but codex speaks only the OpenAI Responses API`,
      {
        hint: `Give uwf-codex a model whose provider has \`api: ${CODEX_API}\`, or run this role with another agent.`,
      },
    );
  }
  return { alias, baseUrl: endpoint.baseUrl, apiKey: endpoint.apiKey, name: endpoint.model };
}
