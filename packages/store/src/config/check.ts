import { CONFIG_SCHEMA } from "@united-workforce/protocol";
import { maskSecret, maskSecretsInText } from "@united-workforce/util";
import { storeKind } from "../store-kind.js";
import { keyPath, type SchemaLike, schemaProblems, unknownKeys } from "./schema-check.js";

/** What is wrong with a config (`errors`: uwf refuses it) and what looks odd (`warnings`). */
export interface ConfigCheck {
  errors: string[];
  warnings: string[];
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Check a parsed config.yaml: types first (each problem names its key path), then what the
 * schema cannot say: names that must point at something configured, and variable names.
 * Keys the schema does not know are warnings, so other tools' settings can live in the file.
 */
export function checkConfig(data: unknown): ConfigCheck {
  const schema = CONFIG_SCHEMA as SchemaLike;
  const errors = schemaProblems(schema, data);
  // References are only followed in a well-typed config: a cascade of "not configured" after
  // a type error would bury the one message that matters.
  if (errors.length > 0) return { errors, warnings: [] };
  const config = data as Record<string, unknown>;
  errors.push(...referenceProblems(config));
  const warnings = unknownKeys(schema, data).map((key) => `unknown key ${key}`);
  return { errors, warnings };
}

type Entries = Record<string, Record<string, unknown> | null>;

function referenceProblems(config: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const providers = (config.providers ?? {}) as Entries;
  const models = (config.models ?? {}) as Entries;
  const agents = (config.agents ?? {}) as Entries;
  const modelHint = (): string => {
    const known = Object.keys(models);
    return known.length > 0 ? ` (configured: ${known.join(", ")})` : " (no models are configured)";
  };

  for (const [alias, provider] of Object.entries(providers)) {
    const at = keyPath("providers", alias);
    const baseUrl = provider?.baseUrl as string;
    if (!/^https?:\/\/[^/\s]+/.test(baseUrl)) {
      problems.push(
        `${at}.baseUrl must be an http:// or https:// URL, got ${JSON.stringify(maskSecretsInText(baseUrl))}`,
      );
    }
    const envName = provider?.apiKeyEnv as string | undefined;
    if (envName !== undefined && !ENV_NAME.test(envName)) {
      // What is not a variable's name here is often the key itself, pasted in the wrong place.
      problems.push(
        `${at}.apiKeyEnv must be an environment variable name (letters, digits, _), got ${JSON.stringify(maskSecret(envName))}`,
      );
    }
  }
  for (const [index, entry] of ((config.notify ?? []) as Record<string, unknown>[]).entries()) {
    const at = `notify[${index}]`;
    const { command, webhook } = entry as { command?: string[]; webhook?: string };
    if ((command === undefined) === (webhook === undefined)) {
      problems.push(`${at} must have either command or webhook (one of them)`);
    } else if (command !== undefined && command.length === 0) {
      problems.push(`${at}.command must name a command`);
    } else if (webhook !== undefined && !/^https?:\/\/[^/\s]+/.test(webhook)) {
      problems.push(
        `${at}.webhook must be an http:// or https:// URL, got ${JSON.stringify(maskSecretsInText(webhook))}`,
      );
    }
  }
  const publicUrl = (config.dashboard as { publicUrl?: string } | null | undefined)?.publicUrl;
  if (publicUrl !== undefined && !/^https?:\/\/[^/\s?#]+\/?$/.test(publicUrl)) {
    problems.push(
      `dashboard.publicUrl must be an http:// or https:// origin with no path, got ${JSON.stringify(maskSecretsInText(publicUrl))}`,
    );
  }
  const github = (config.webhooks as { github?: Record<string, unknown> } | null | undefined)
    ?.github;
  if (github !== undefined && github !== null) {
    if ((github.secret === undefined) === (github.secretEnv === undefined)) {
      problems.push("webhooks.github must have either secret or secretEnv (one of them)");
    } else if (typeof github.secretEnv === "string" && !ENV_NAME.test(github.secretEnv)) {
      problems.push(
        `webhooks.github.secretEnv must be an environment variable name (letters, digits, _), got ${JSON.stringify(maskSecret(github.secretEnv))}`,
      );
    }
  }
  for (const [alias, model] of Object.entries(models)) {
    const provider = model?.provider as string;
    if (!Object.hasOwn(providers, provider)) {
      problems.push(
        `model ${JSON.stringify(alias)} names provider ${JSON.stringify(provider)}, which is not configured under providers`,
      );
    }
  }
  for (const [alias, agent] of Object.entries(agents)) {
    const model = agent?.model as string | undefined;
    if (model !== undefined && !Object.hasOwn(models, model)) {
      problems.push(
        `agent ${JSON.stringify(alias)} names model ${JSON.stringify(model)}, which is not configured under models${modelHint()}`,
      );
    }
    for (const name of Object.keys((agent?.env ?? {}) as object)) {
      if (!ENV_NAME.test(name)) {
        problems.push(
          `${keyPath(keyPath("agents", alias), "env")} has ${JSON.stringify(name)}, which is not an environment variable name (letters, digits, _)`,
        );
      }
    }
  }
  const store = storeProblem(config.store);
  if (store !== null) problems.push(store);
  const defaultModel = config.defaultModel as string | undefined;
  if (defaultModel !== undefined && defaultModel !== null && !Object.hasOwn(models, defaultModel)) {
    problems.push(
      `defaultModel names model ${JSON.stringify(defaultModel)}, which is not configured under models${modelHint()}`,
    );
  }
  // Only the purposes uwf knows: another key there is warned about as unknown.
  const extract = (config.modelOverrides as { extract?: string } | null | undefined)?.extract;
  if (extract !== undefined && !Object.hasOwn(models, extract)) {
    problems.push(
      `modelOverrides.extract names model ${JSON.stringify(extract)}, which is not configured under models${modelHint()}`,
    );
  }
  return problems;
}

/** Why a well-typed `store:` value cannot be opened (a scheme uwf has no backend for), or null. */
export function storeProblem(store: unknown): string | null {
  if (typeof store !== "string" || storeKind(store) !== null) return null;
  return `store must be fs or a postgres:// URL, got ${JSON.stringify(maskSecretsInText(store))}`;
}
