import { type AgentOptionValues, minimalEnv } from "@united-workforce/agent-kit";
import { UwfError } from "@united-workforce/util";

/** Codex's sandbox policies for the commands the model runs (`codex exec -s`). */
export const SANDBOX_MODES = ["read-only", "workspace-write", "danger-full-access"] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];
/** The agent may edit files in the step's directory, and nowhere else. */
export const DEFAULT_SANDBOX: SandboxMode = "workspace-write";

export const CODEX_INSTALL_HINT =
  "Install the Codex CLI (npm install -g @openai/codex), or point uwf-codex at it with --codex-bin <path> or UWF_CODEX_BIN.";

/** A model alias resolved from config.yaml: where codex sends its requests. */
export interface CodexModel {
  alias: string;
  baseUrl: string;
  apiKey: string | null;
  /** The model's name at the provider. */
  name: string;
}

/** The provider entry uwf adds to codex's config, and the variable that carries its key. */
export const PROVIDER_ID = "uwf";
export const API_KEY_ENV = "UWF_CODEX_API_KEY";

/**
 * Variables codex reads for its own login and settings, passed on only when no model alias is
 * given: with one, codex talks to the configured provider and needs none of them.
 */
const OWN_LOGIN_ENV = ["CODEX_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"];

export function parseSandbox(value: AgentOptionValues[string]): SandboxMode {
  if (typeof value !== "string") return DEFAULT_SANDBOX;
  if ((SANDBOX_MODES as readonly string[]).includes(value)) return value as SandboxMode;
  throw new UwfError("USAGE", `unknown sandbox mode "${value}"`, {
    hint: `Use one of: ${SANDBOX_MODES.join(", ")} (the default is ${DEFAULT_SANDBOX}).`,
  });
}

/**
 * The arguments of one codex run: a new session (`codex exec`), or the role's earlier session
 * resumed (`codex exec resume <id>`). The prompt always comes on stdin (`-`), so its size is
 * not bound by the argv limit. Not `--ephemeral`: resuming needs the session's rollout file.
 */
export function codexArgs(options: {
  sandbox: SandboxMode;
  model: CodexModel | null;
  resume: string | null;
}): string[] {
  const config = options.model ? modelConfigFlags(options.model) : [];
  if (options.resume === null) {
    return ["exec", "--json", "--skip-git-repo-check", "-s", options.sandbox, ...config, "-"];
  }
  // `exec resume` rejects -s, and without the sandbox setting the resumed turn is read-only.
  return [
    "exec",
    "resume",
    "--json",
    "--skip-git-repo-check",
    ...configFlag("sandbox_mode", toml(options.sandbox)),
    ...config,
    checkedSessionId(options.resume),
    "-",
  ];
}

/**
 * `-c` flags that point codex at the model's provider (OpenAI Responses API), without retries
 * (uwf reports a failure and the thread can be resumed), and stop every call it would make
 * elsewhere: update checks, plugin sync, analytics and metrics.
 */
export function modelConfigFlags(model: CodexModel): string[] {
  const provider = [
    `name = ${toml(PROVIDER_ID)}`,
    `base_url = ${toml(model.baseUrl)}`,
    ...(model.apiKey === null ? [] : [`env_key = ${toml(API_KEY_ENV)}`]),
    `wire_api = "responses"`,
    "request_max_retries = 0",
    "stream_max_retries = 0",
  ];
  return [
    ...configFlag(`model_providers.${PROVIDER_ID}`, `{ ${provider.join(", ")} }`),
    ...configFlag("model_provider", toml(PROVIDER_ID)),
    ...configFlag("model", toml(model.name)),
    ...configFlag("check_for_update_on_startup", "false"),
    ...configFlag("features.plugins", "false"),
    ...configFlag("analytics.enabled", "false"),
    ...configFlag("otel.metrics_exporter", toml("none")),
    // Codex gives the model's commands its whole environment, the key's variable included, and
    // records it in its shell snapshots ($CODEX_HOME/shell_snapshots/*.sh, mode 0644): only
    // codex's model client may read the key. (This replaces an `exclude` list in the user's
    // config.toml; the minimal environment codex gets leaves little else to hide.)
    ...configFlag("shell_environment_policy.exclude", `[${toml(API_KEY_ENV)}]`),
  ];
}

/**
 * Codex's environment: the minimal one, `CODEX_HOME` (where its sessions and login live), and
 * either the model's key (alias given) or the variables of codex's own login.
 */
export function codexEnv(
  parent: Record<string, string | undefined>,
  model: CodexModel | null,
): Record<string, string> {
  if (model) {
    return minimalEnv(parent, {
      passThrough: ["CODEX_HOME"],
      extra: { [API_KEY_ENV]: model.apiKey ?? undefined },
    });
  }
  return minimalEnv(parent, { passThrough: ["CODEX_HOME", ...OWN_LOGIN_ENV] });
}

/** Whether a codex thread id read from the chain is safe to pass as an argument and file name. */
export function isCodexSessionId(id: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9-]{0,127}$/.test(id);
}

function checkedSessionId(id: string): string {
  if (!isCodexSessionId(id)) throw new Error(`not a codex session id: ${JSON.stringify(id)}`);
  return id;
}

function configFlag(key: string, value: string): string[] {
  return ["-c", `${key}=${value}`];
}

/** A TOML basic string. JSON's escapes are TOML's, except that DEL must be escaped too. */
function toml(text: string): string {
  return JSON.stringify(text).replace(/\u007f/g, "\\u007F");
}
