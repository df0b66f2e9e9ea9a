/**
 * JSON Schema of `$UWF_HOME/config.yaml` (DESIGN §11, docs/config.md), for editors
 * (`docs/config.schema.json` is generated from it) and for the store's config check. It uses
 * only the keywords the store's small checker understands (type, properties, required,
 * additionalProperties, items, minLength, exclusiveMinimum, enum, description): reading the
 * config happens on every exec and must not load a JSON Schema compiler.
 *
 * Keys it does not name are allowed (other tools may keep settings here) and uwf warns about
 * them. A top-level key left empty in YAML (`agents:`) is null and means "not set".
 */
const name = { type: "string", minLength: 1 } as const;

function mapOf(values: Record<string, unknown>, description: string) {
  return { type: ["object", "null"], description, additionalProperties: values } as const;
}

/** The wire protocols a provider may speak; `openai-chat` when a provider does not say. */
export const PROVIDER_APIS = ["anthropic", "openai-chat", "openai-responses", "gemini"] as const;
export type ProviderApi = (typeof PROVIDER_APIS)[number];
export const DEFAULT_PROVIDER_API: ProviderApi = "openai-chat";

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
  postgres: {
    type: ["object", "null"],
    description:
      "how long a PostgreSQL store is waited on: a server that does not answer in time fails the command with STORE_UNAVAILABLE",
    properties: {
      connectTimeoutSeconds: {
        type: "number",
        exclusiveMinimum: 0,
        description: "how long one connection attempt may take (default 10)",
      },
      connectAttempts: {
        type: "integer",
        exclusiveMinimum: 0,
        description:
          "connection attempts before giving up on a server that refuses, drops or does not accept connections, is out of connection slots or starting up; the pause between them doubles from about 0.25 s to about 2 s, with jitter (default 8)",
      },
      statementTimeoutSeconds: {
        type: "number",
        exclusiveMinimum: 0,
        description:
          "how long one statement may run (the server's statement_timeout; uwf stops waiting for an answer connectTimeoutSeconds later) (default 60)",
      },
      lockTimeoutSeconds: {
        type: "number",
        exclusiveMinimum: 0,
        description: "how long a statement may wait for a lock (lock_timeout) (default 30)",
      },
    },
  },
} as const;

/**
 * When a `notify:` entry fires: a thread waits for a person (question, human), failed (an
 * agent's failure, a fan-out's), reached a budget or a guard, or completed.
 */
export const NOTIFY_MOMENTS = ["waiting", "failed", "budget", "completed"] as const;
export type NotifyMoment = (typeof NOTIFY_MOMENTS)[number];

export const CONFIG_SCHEMA = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "config.yaml (UWF_HOME)",
  description: "uwf's configuration: model providers, model aliases, agents and defaults",
  type: "object",
  properties: {
    providers: mapOf(
      {
        type: "object",
        required: ["baseUrl"],
        properties: {
          api: {
            enum: PROVIDER_APIS,
            description:
              "the provider's wire protocol: anthropic, openai-chat (default), openai-responses or gemini",
          },
          baseUrl: {
            ...name,
            description:
              "the endpoint as the provider's SDK takes it, e.g. https://api.openai.com/v1, https://api.anthropic.com",
          },
          apiKey: {
            // An empty key would win over apiKeyEnv and be sent as it is.
            ...name,
            description: "the API key itself (prefer apiKeyEnv: the file then holds no secret)",
          },
          apiKeyEnv: {
            ...name,
            description: "the environment variable (or UWF_HOME/.env entry) holding the API key",
          },
        },
      },
      "model providers by name: where a model is served and how to authenticate",
    ),
    models: mapOf(
      {
        type: "object",
        required: ["provider", "name"],
        properties: {
          provider: { ...name, description: "a provider name under providers" },
          name: { ...name, description: "the model's name at that provider, e.g. gpt-5" },
        },
      },
      "model aliases: a provider and the model's name there",
    ),
    agents: mapOf(
      {
        type: "object",
        required: ["command"],
        properties: {
          command: {
            ...name,
            description: "the adapter binary (e.g. uwf-claude-code), run without a shell",
          },
          args: {
            type: "array",
            items: { type: "string" },
            description: "arguments passed before uwf's own",
          },
          model: {
            ...name,
            description:
              "a model alias under models, passed as --model; without it the agent CLI's own login and settings are used",
          },
          timeoutSeconds: {
            type: "number",
            exclusiveMinimum: 0,
            description: "how long one step may run (default 1800)",
          },
          env: {
            type: "object",
            additionalProperties: { type: "string" },
            description: "variables added to the adapter's environment",
          },
        },
      },
      "agent aliases: the adapter command each runs",
    ),
    defaultAgent: {
      type: ["string", "null"],
      minLength: 1,
      description: "the agent alias (or command) used when nothing else chooses one",
    },
    defaultModel: {
      type: ["string", "null"],
      minLength: 1,
      description: "the model alias used when nothing else chooses one",
    },
    agentOverrides: mapOf(
      { type: "object", additionalProperties: name },
      "agent alias per workflow name, then per role",
    ),
    modelOverrides: {
      type: ["object", "null"],
      description: "model alias per purpose",
      properties: {
        extract: {
          ...name,
          description: "the model that turns an agent's unparseable reply into its output",
        },
      },
    },
    limits: mapOf(
      {
        type: "object",
        properties: {
          maxCostUsd: {
            type: "number",
            exclusiveMinimum: 0,
            description:
              "the most one exec or resume run may spend in US dollars; the thread suspends before the next step (a step of unknown cost suspends it too)",
          },
          maxSteps: {
            type: "integer",
            exclusiveMinimum: 0,
            description:
              "the most steps one exec or resume run may take; the thread suspends before the next one",
          },
        },
      },
      "budgets per workflow name; --max-cost and --max-steps of thread exec replace them for a run",
    ),
    retry: {
      type: ["object", "null"],
      description:
        "how a step whose agent failed transiently (adapter exit 75: rate limit, HTTP 429/5xx, usage limit) is retried",
      properties: {
        maxRetries: {
          type: "integer",
          exclusiveMinimum: -1,
          description:
            "retries within one exec before the thread suspends until a retry-after time (default 3; 0 suspends at once)",
        },
        delaySeconds: {
          type: "number",
          exclusiveMinimum: 0,
          description: "the wait before the first retry; each next one doubles it (default 10)",
        },
        maxDelaySeconds: {
          type: "number",
          exclusiveMinimum: 0,
          description: "the longest wait between two tries (default 600)",
        },
      },
    },
    steer: {
      type: ["object", "null"],
      description:
        "how a running step's agent hears `uwf thread steer` (agents that accept input while they run: uwf-builtin, uwf-claude-code)",
      properties: {
        pollSeconds: {
          type: "number",
          exclusiveMinimum: 0,
          description:
            "how often a running agent's adapter looks for new guidance notes on its thread (default 2)",
        },
      },
    },
    worktrees: {
      type: ["object", "null"],
      description: "git worktrees of threads that run in their own (worktree: true, --worktree)",
      properties: {
        dir: {
          ...name,
          description:
            "the folder new worktrees go in, one sub-folder per thread; relative to the repository's top folder (default: UWF_HOME/worktrees/<repository name>)",
        },
      },
    },
    notify: {
      type: ["array", "null"],
      description:
        "who hears when a thread waits for a person, fails, reaches a budget or completes: each entry runs a command or posts to a webhook",
      items: {
        type: "object",
        required: ["on"],
        properties: {
          on: {
            type: "array",
            description: "the moments to notify: waiting, failed, budget, completed",
            items: { enum: NOTIFY_MOMENTS },
          },
          command: {
            type: "array",
            description:
              "a command and its arguments, run with no shell; the notification's JSON document is on its stdin",
            items: name,
          },
          webhook: {
            ...name,
            description:
              "an http:// or https:// URL the notification is POSTed to as JSON, with a Slack-compatible text",
          },
          timeoutSeconds: {
            type: "number",
            exclusiveMinimum: 0,
            description:
              "how long the command or the request may take before it is given up (default 10)",
          },
        },
      },
    },
    dashboard: {
      type: ["object", "null"],
      description: "the web view (uwf dashboard) when a proxy or tunnel serves it to others",
      properties: {
        publicUrl: {
          ...name,
          description:
            "the http:// or https:// origin a proxy or tunnel serves uwf dashboard at (no path); set, notifications carry a signed single-use link to the thread's answer form",
        },
        linkHours: {
          type: "number",
          exclusiveMinimum: 0,
          description: "how long an answer link in a notification is valid (default 24)",
        },
      },
    },
    webhooks: {
      type: ["object", "null"],
      description: "events uwf dashboard accepts at /hooks/<source>, signed with a shared secret",
      properties: {
        github: {
          type: "object",
          description:
            "GitHub's webhook deliveries at POST /hooks/github: each starts the registered workflows whose on.github matches",
          properties: {
            secret: {
              ...name,
              description:
                "the webhook's secret itself (prefer secretEnv: the file then holds none)",
            },
            secretEnv: {
              ...name,
              description:
                "the environment variable (or UWF_HOME/.env entry) holding the webhook's secret",
            },
          },
        },
      },
    },
    ...STORE_CONFIG_PROPERTIES,
  },
} as const;

/** `docs/config.schema.json`, as `pnpm docs:config` writes it and a test compares it. */
export function configSchemaJson(): string {
  return `${JSON.stringify(CONFIG_SCHEMA, null, 2)}\n`;
}
