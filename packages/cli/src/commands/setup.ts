import { join } from "node:path";
import { type CheckResult, ExitCode, PROVIDER_APIS } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import { type CommandContext, defineCommand, result } from "./command.js";
import type { SetupOutcome, SetupRequest } from "./setup/plan.js";
import { renderChecks } from "./setup/render.js";

const MODEL_CHECK_MS = 15_000;

export default defineCommand({
  path: ["setup"],
  summary: "configure a model provider and an agent, then check that both answer",
  description: [
    "Writes providers.<provider>, models.<alias> and defaultModel, agents.<alias> and defaultAgent into config.yaml (mode 0600), keeping every other key. Then it asks the model for one token (15 s timeout) and looks for the adapter and its agent CLI on PATH, printing how to install what is missing.",
    "A preset provider fills --base-url, --api and the key's variable (--api-key-env) when they are not given: openai, anthropic, gemini, xai, openrouter, venice, dashscope, deepseek, siliconflow, volcengine, kimi, glm, stepfun, minimax, ollama (and -intl variants of the China-based ones). --agent takes claude-code, codex, builtin, gemini, opencode, claude-acp, hermes, mock, an alias already configured, or any command; an agent CLI's own name (claude) means the adapter preset that drives it.",
    "The config is saved even when a check fails (fix the cause and run `uwf doctor`); the exit status is then 1. Without flags on a terminal (or with --interactive) it asks instead. Prefer --api-key-env or the question to --api-key: a key on the command line stays in your shell history. The key is never printed; a key variable that is not set (in the environment or UWF_HOME/.env) is warned about.",
  ].join("\n\n"),
  options: [
    { flags: "--provider <name>", type: "string", description: "a preset, or a name of your own" },
    { flags: "--base-url <url>", type: "string", description: "the provider's endpoint" },
    {
      flags: "--api <api>",
      type: "enum",
      choices: PROVIDER_APIS,
      description: "the provider's protocol (default: the preset's, else openai-chat)",
    },
    { flags: "--api-key <key>", type: "string", description: "the API key, stored in config.yaml" },
    {
      flags: "--api-key-env <var>",
      type: "string",
      description: "read the key from this variable (or UWF_HOME/.env) instead of storing it",
    },
    { flags: "--model <name>", type: "string", description: "the model's name at the provider" },
    {
      flags: "--model-alias <alias>",
      type: "string",
      description: "the alias to save the model as (default: the provider's name)",
    },
    { flags: "--agent <agent>", type: "string", description: "an agent preset, alias or command" },
    {
      flags: "--agent-alias <alias>",
      type: "string",
      description: "the alias to save the agent as (default: the preset's, or the command's name)",
    },
    { flags: "--skip-checks", type: "boolean", description: "save without checking anything" },
    {
      flags: "--interactive",
      type: "boolean",
      description: "ask for what the flags do not give, reading answers from stdin",
    },
  ],
  examples: [
    "uwf setup",
    "uwf setup --provider openrouter --model anthropic/claude-sonnet-4.5 --agent builtin",
    "uwf setup --provider anthropic --model claude-sonnet-4-5 --api-key-env ANTHROPIC_API_KEY --agent claude-code",
    "uwf setup --provider local --base-url http://127.0.0.1:8000/v1 --model qwen3 --agent builtin",
    "uwf setup --agent codex",
  ],
  async run(ctx, _args, options) {
    const { applySetup } = await import("./setup/plan.js");
    const { checkConfig, configData, formatKeyPath, openConfigFile } = await import(
      "@united-workforce/store"
    );
    let request: SetupRequest = {
      provider: options.provider,
      baseUrl: options.baseUrl,
      api: options.api,
      apiKey: options.apiKey,
      apiKeyEnv: options.apiKeyEnv,
      model: options.model,
      modelAlias: options.modelAlias,
      agent: options.agent,
      agentAlias: options.agentAlias,
    };
    const nothingGiven = request.provider === undefined && request.agent === undefined;
    if (options.interactive || (nothingGiven && process.stdin.isTTY)) {
      const { askSetup, streamPrompter } = await import("./setup/interactive.js");
      const prompter = streamPrompter(process.stdin, process.stderr);
      try {
        request = await askSetup(prompter, request);
      } finally {
        prompter.close();
      }
    } else if (nothingGiven) {
      throw new UwfError("USAGE", "uwf setup needs flags when it is not run in a terminal", {
        hint: "e.g. uwf setup --provider openrouter --model anthropic/claude-sonnet-4.5 --agent builtin, or --interactive to answer on stdin.",
      });
    }

    const config = openConfigFile(ctx.home);
    const before = checkConfig(configData(config)).errors;
    const outcome = applySetup(config, request, ctx.cwd);
    const { reportWarnings, saveChange } = await import("./config/report.js");
    const warnings = await saveChange(config, before, (problems) =>
      refusedFlags(problems, outcome, config.file, formatKeyPath),
    );
    ctx.events.emit("setup.saved", {
      provider: outcome.provider,
      model: outcome.modelAlias,
      agent: outcome.agentAlias,
    });
    for (const note of outcome.notes) ctx.progress(`note: ${note}`);
    reportWarnings(ctx, config.file, warnings);

    const checks = options.skipChecks ? [] : await runSetupChecks(ctx, outcome);
    const failures = checks.filter((c) => !c.ok).length;
    return result(
      {
        file: config.file,
        saved: true,
        provider: outcome.provider,
        model: outcome.modelAlias,
        agent: outcome.agentAlias,
        checks,
      },
      (d) =>
        [
          `Config saved to ${d.file} ✓`,
          renderChecks(d.checks),
          failures > 0
            ? `${failures} check${failures === 1 ? "" : "s"} failed: the config is saved; fix the cause, then run uwf doctor.`
            : "",
        ]
          .filter(Boolean)
          .join("\n"),
      failures > 0 ? ExitCode.error : ExitCode.ok,
    );
  },
});

/** The config keys each flag of setup writes, so a refused value is reported by its flag. */
function flagKeys(outcome: SetupOutcome): [string[], string][] {
  const pairs: [string[], string][] = [];
  if (outcome.provider !== null) {
    const provider = ["providers", outcome.provider];
    pairs.push([[...provider, "baseUrl"], "--base-url"]);
    pairs.push([[...provider, "apiKeyEnv"], "--api-key-env"]);
    pairs.push([[...provider, "apiKey"], "--api-key"]);
    pairs.push([[...provider, "api"], "--api"]);
  }
  if (outcome.modelAlias !== null) {
    pairs.push([["models", outcome.modelAlias, "name"], "--model"]);
  }
  if (outcome.agentAlias !== null) {
    pairs.push([["agents", outcome.agentAlias, "command"], "--agent"]);
  }
  return pairs;
}

/**
 * What setup was given is wrong, not the file (nothing was saved): a usage error naming the
 * flag behind each problem when there is one.
 */
function refusedFlags(
  problems: string[],
  outcome: SetupOutcome,
  file: string,
  formatKeyPath: (path: readonly string[]) => string,
): UwfError {
  const keys = flagKeys(outcome).map(([path, flag]) => [formatKeyPath(path), flag] as const);
  const flags = new Set<string>();
  const named = problems.map((problem) => {
    const flag = keys.find(([key]) => problem.startsWith(`${key} `))?.[1];
    if (flag === undefined) return problem;
    flags.add(flag);
    return `${flag}: ${problem}`;
  });
  const which = flags.size > 0 ? [...flags].join(", ") : "the values given";
  return new UwfError(
    "USAGE",
    `uwf setup refused ${which}, nothing was saved to ${file}: ${named.join("; ")}`,
    {
      hint: "Fix the flag's value and run uwf setup again (uwf setup --help describes each flag).",
      details: { file, flags: [...flags], errors: problems },
    },
  );
}

async function runSetupChecks(ctx: CommandContext, outcome: SetupOutcome): Promise<CheckResult[]> {
  const checks: CheckResult[] = [];
  if (outcome.modelAlias !== null) {
    const { readConfig, resolveModel } = await import("@united-workforce/store");
    const { addHomeDotenv } = await import("@united-workforce/engine");
    const { checkApiKeyEnv } = await import("./setup/checks.js");
    const { checkModel } = await import("./setup/model-check.js");
    const config = readConfig(ctx.home);
    const env = { ...ctx.env };
    addHomeDotenv(ctx.home, env);
    const target = resolveModel(config, outcome.modelAlias, env);
    const apiKeyEnv = config.providers?.[target.provider]?.apiKeyEnv;
    checks.push(
      await checkModel({ ...target, apiKeyEnv }, { timeoutMs: MODEL_CHECK_MS, signal: ctx.signal }),
    );
    // Said even when the model answered: it answered without the key the user meant to give.
    if (apiKeyEnv !== undefined && config.providers?.[target.provider]?.apiKey === undefined) {
      const key = checkApiKeyEnv(target.provider, apiKeyEnv, env, join(ctx.home, ".env"));
      if (key.warning) checks.push(key);
    }
  }
  if (outcome.agent !== null) {
    const { findExecutable } = await import("@united-workforce/util");
    const { checkAgent } = await import("./setup/agent-checks.js");
    checks.push(
      ...(await checkAgent(outcome.agentAlias!, outcome.agent, {
        env: ctx.env,
        cwd: ctx.cwd,
        versions: false,
        timeoutMs: 10_000,
        findExecutable,
      })),
    );
  }
  return checks;
}
