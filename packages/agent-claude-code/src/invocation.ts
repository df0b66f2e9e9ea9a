import { type AgentContext, type AgentOptionValues, minimalEnv } from "@united-workforce/agent-kit";
import { readConfig, resolveModel, type UwfConfig } from "@united-workforce/store";
import { UwfError } from "@united-workforce/util";

/** What to do when `claude` is not found. */
export const INSTALL_HINT =
  "Install Claude Code (npm install -g @anthropic-ai/claude-code), or point --claude-bin / UWF_CLAUDE_BIN at its binary.";

/** Claude Code's permission modes (`claude --help`). */
export const PERMISSION_MODES = [
  "acceptEdits",
  "auto",
  "bypassPermissions",
  "default",
  "dontAsk",
  "plan",
] as const;

/**
 * With no model alias, Claude Code runs on the user's own login and settings: these variables
 * reach it as they are (its config dir, its keys and endpoints, its own switches). With an
 * alias they do not: the alias says where the model is.
 */
export const CLAUDE_LOGIN_ENV = [
  "CLAUDE_CONFIG_DIR",
  "ANTHROPIC_*",
  "CLAUDE_CODE_*",
  "DISABLE_TELEMETRY",
  "DISABLE_ERROR_REPORTING",
  "DISABLE_AUTOUPDATER",
] as const;

/** How to run `claude` for one step: its argv (the input goes on stdin) and environment. */
export interface ClaudeInvocation {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** The model name given to `--model`, when one is. */
  model: string | null;
}

/** Build the invocation from the adapter's options; `resume` continues that session. */
export function claudeInvocation(ctx: AgentContext, resume: string | null): ClaudeInvocation {
  const options = ctx.options;
  const permissionMode = stringOption(options["permission-mode"]) ?? "acceptEdits";
  if (!(PERMISSION_MODES as readonly string[]).includes(permissionMode)) {
    throw new UwfError("USAGE", `unknown --permission-mode "${permissionMode}"`, {
      hint: `Use one of: ${PERMISSION_MODES.join(", ")}.`,
    });
  }
  // Input as stream-json too: the prompt is the first user message, and a `thread steer` note
  // that arrives while claude works is written as another (claude-run.ts).
  const args = [
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
  ];
  args.push("--permission-mode", permissionMode);
  const allowed = stringOption(options["allowed-tools"]);
  if (allowed) args.push("--allowedTools", allowed);
  if (resume) args.push("--resume", resume);

  const retries = stringOption(options["max-retries"]);
  if (retries !== undefined && !/^\d+$/.test(retries)) {
    throw new UwfError("USAGE", `--max-retries must be a whole number, got "${retries}"`);
  }
  const passEnv = (stringOption(options["pass-env"]) ?? "")
    .split(/[\s,]+/)
    .filter((name) => name !== "");

  const alias = stringOption(options.model);
  let model: string | null = stringOption(options["claude-model"]) ?? null;
  let env: Record<string, string>;
  if (alias) {
    const config = readConfig(ctx.home);
    const resolved = resolveModel(config, alias, ctx.env);
    checkAnthropicApi(config, alias);
    model = resolved.model;
    env = minimalEnv(ctx.env, {
      passThrough: passEnv,
      extra: {
        // Claude Code appends `/v1/messages` itself.
        ANTHROPIC_BASE_URL: resolved.baseUrl.replace(/\/v1$/, ""),
        ANTHROPIC_API_KEY: resolved.apiKey ?? undefined,
        // No update checks, telemetry or error reports: only the configured endpoint is called.
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        CLAUDE_CODE_MAX_RETRIES: retries,
      },
    });
  } else {
    env = minimalEnv(ctx.env, {
      passThrough: [...CLAUDE_LOGIN_ENV, ...passEnv],
      ...(retries !== undefined ? { extra: { CLAUDE_CODE_MAX_RETRIES: retries } } : {}),
    });
  }
  if (model) args.push("--model", model);
  const command = stringOption(options["claude-bin"]) ?? "claude";
  return { command, args, env, model };
}

/** A provider that declares another API (`api: openai-chat`) cannot serve Claude Code. */
function checkAnthropicApi(config: UwfConfig, alias: string): void {
  const provider = config.models?.[alias]?.provider;
  const api = provider
    ? (config.providers?.[provider] as { api?: unknown } | undefined)?.api
    : undefined;
  if (api !== undefined && api !== "anthropic") {
    throw new UwfError(
      "CONFIG_INVALID",
      `model "${alias}" is served by provider "${provider}" with api "${String(api)}", but Claude Code speaks only the Anthropic Messages API`,
      {
        hint: "Give uwf-claude-code a model whose provider has `api: anthropic`, or use uwf-builtin or uwf-codex for this one.",
      },
    );
  }
}

function stringOption(value: AgentOptionValues[string]): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
