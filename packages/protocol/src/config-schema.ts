/**
 * JSON Schema of `$UWF_HOME/config.yaml` (DESIGN §11), for editors and for the store's config
 * check. It uses only the keywords the store's small checker understands (type, properties,
 * required, additionalProperties, items, minLength, exclusiveMinimum, description): reading
 * the config happens on every exec and must not load a JSON Schema compiler.
 *
 * Keys it does not name are allowed (other tools may keep settings here). A top-level key left
 * empty in YAML (`agents:`) is null and means "not set".
 */
const name = { type: "string", minLength: 1 } as const;

function mapOf(values: Record<string, unknown>, description: string) {
  return { type: ["object", "null"], description, additionalProperties: values } as const;
}

/** The keys that say where the store is: read by every command, so checked on their own. */
export const STORE_CONFIG_PROPERTIES = {
  store: {
    type: ["string", "null"],
    minLength: 1,
    description: "fs (the default, under UWF_HOME) or a postgres:// URL; UWF_STORE overrides it",
  },
  host: {
    type: ["string", "null"],
    minLength: 1,
    description: "this machine's name in exec leases (default: the host name)",
  },
  leaseSeconds: {
    type: ["number", "null"],
    exclusiveMinimum: 0,
    description: "how long an exec lease lives without renewal (default 30)",
  },
} as const;

export const CONFIG_SCHEMA = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "config.yaml (UWF_HOME)",
  type: "object",
  properties: {
    providers: mapOf(
      {
        type: "object",
        required: ["baseUrl"],
        properties: {
          baseUrl: { ...name, description: "OpenAI-compatible endpoint, e.g. https://…/v1" },
          apiKey: { type: "string" },
          apiKeyEnv: { ...name, description: "environment variable holding the key" },
        },
      },
      "model providers by name",
    ),
    models: mapOf(
      {
        type: "object",
        required: ["provider", "name"],
        properties: { provider: name, name },
      },
      "model aliases: a provider and the model's name there",
    ),
    agents: mapOf(
      {
        type: "object",
        required: ["command"],
        properties: {
          command: { ...name, description: "adapter binary, run without a shell" },
          args: { type: "array", items: { type: "string" } },
          timeoutSeconds: { type: "number", exclusiveMinimum: 0 },
        },
      },
      "agent aliases: the adapter command each runs",
    ),
    defaultAgent: { type: ["string", "null"], minLength: 1, description: "an agent alias" },
    defaultModel: { type: ["string", "null"], minLength: 1, description: "a model alias" },
    agentOverrides: mapOf(
      { type: "object", additionalProperties: name },
      "agent alias per workflow name, then per role",
    ),
    modelOverrides: mapOf(name, "model alias per purpose, e.g. extract"),
    ...STORE_CONFIG_PROPERTIES,
  },
} as const;
