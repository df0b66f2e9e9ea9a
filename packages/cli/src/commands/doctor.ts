import { getMaxListeners, setMaxListeners } from "node:events";
import { accessSync, constants } from "node:fs";
import { join } from "node:path";
import type { CheckResult } from "@united-workforce/protocol";
import { ExitCode, isPlainObject } from "@united-workforce/protocol";
import { addHomeDotenv, docsUrl, errorMessage, isUwfError } from "@united-workforce/util";
import { type CommandContext, defineCommand, result } from "./command.js";
import { checksSummary, renderChecks } from "./setup/render.js";

/** The oldest Node uwf runs on: process.getBuiltinModule came in 20.16 (boot.cjs refuses older). */
const MIN_NODE = [20, 16] as const;

export default defineCommand({
  path: ["doctor"],
  summary:
    "check Node, config.yaml, the store, every agent's binary and every provider, one line each",
  description:
    "The store (UWF_STORE, else config.yaml's `store:`, else fs; password masked) is opened as thread commands open it: the home must be writable, a PostgreSQL store must connect. Each configured agent's adapter (and, for adapters uwf knows, the agent CLI it drives) must be on PATH, and an agent CLI configured as the command itself (`command: claude`) fails, naming its adapter; its `--version` answer is shown (run without a shell, with only PATH and HOME); a `--model` in its args must be a configured alias, and uwf-builtin needs a model. Each provider's base URL must answer HTTP (no key is sent; any status shows the host is up, and an error status such as 404 is a warning that names it), and its apiKeyEnv must be set (in the environment or UWF_HOME/.env), else a warning. Exits 1 when any check fails (`✗`); a warning (`!`) is worth a look but fails nothing.",
  options: [
    {
      flags: "--timeout <duration>",
      type: "duration",
      bareUnit: "s",
      default: "10s",
      description: "how long each request and each --version may take",
    },
  ],
  examples: ["uwf doctor", "uwf doctor --format json"],
  async run(ctx, _args, options) {
    const checks: CheckResult[] = [nodeCheck(process.versions.node)];
    const { data, check } = await configCheck(ctx);
    checks.push(check);
    checks.push(await storeCheck(ctx, data, options.timeout));
    checks.push(...(await agentAndProviderChecks(ctx, data, options.timeout)));
    const failures = checks.filter((c) => !c.ok).length;
    return result(
      { ok: failures === 0, checks },
      (d) => [renderChecks(d.checks), checksSummary(d.checks)].join("\n"),
      failures === 0 ? ExitCode.ok : ExitCode.error,
    );
  },
});

/** Whether Node `version` (`20.20.2`) is one uwf runs on. */
export function nodeCheck(version: string): CheckResult {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const [minMajor, minMinor] = MIN_NODE;
  const minimum = `${minMajor}.${minMinor}`;
  return major > minMajor || (major === minMajor && minor >= minMinor)
    ? { name: "node", ok: true, detail: `v${version}`, hint: null }
    : {
        name: "node",
        ok: false,
        detail: `v${version} is older than ${minimum}`,
        hint: `Install Node ${minimum} or newer (https://nodejs.org, or nvm install --lts).`,
      };
}

/**
 * The config's verdict, and its data for the other checks: even a config uwf refuses is read
 * as far as it parses, so its agents and providers are still looked at.
 */
async function configCheck(
  ctx: CommandContext,
): Promise<{ data: Record<string, unknown>; check: CheckResult }> {
  const { checkConfig, configData, openConfigFile } = await import("@united-workforce/store");
  const { configWarning } = await import("../output/config-warning.js");
  let file = "config.yaml";
  try {
    const config = openConfigFile(ctx.home);
    file = config.file;
    if (!config.exists) {
      return {
        data: {},
        check: {
          name: "config",
          ok: true,
          detail: `no ${file} yet (uwf setup writes one; --agent works without it)`,
          hint: null,
        },
      };
    }
    const data = configData(config);
    const { errors, warnings } = checkConfig(data);
    for (const warning of warnings) ctx.progress(configWarning(warning, file));
    const check: CheckResult =
      errors.length === 0
        ? {
            name: "config",
            ok: true,
            detail: `${file} is valid${warnings.length > 0 ? ` (${warnings.length} unknown key${warnings.length === 1 ? "" : "s"}, see above)` : ""}`,
            hint: null,
          }
        : {
            name: "config",
            ok: false,
            detail: `${file}: ${errors.join("; ")}`,
            hint: `Fix these keys (uwf config set <key> <value>); ${docsUrl("config.md")} shows the shape.`,
          };
    return { data, check };
  } catch (error) {
    return {
      data: {},
      check: {
        name: "config",
        ok: false,
        detail: errorMessage(error),
        hint: `Fix ${file} by hand; ${docsUrl("config.md")} shows the keys.`,
      },
    };
  }
}

/**
 * The store every thread command opens (UWF_STORE, else config.yaml's `store:`, else fs),
 * opened the same way: the filesystem one must be writable, a PostgreSQL one must connect
 * (and its tables are brought up to date, as any command would), another scheme fails.
 */
async function storeCheck(
  ctx: CommandContext,
  data: Record<string, unknown>,
  timeoutMs: number,
): Promise<CheckResult> {
  const { effectiveStore } = await import("./store/effective.js");
  const { failed, passed } = await import("./setup/checks.js");
  let where = "store";
  try {
    const store = await effectiveStore(ctx.home, data, ctx.env);
    where = store.source === "default" ? store.shown : `${store.shown} (from ${store.source})`;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`)),
        timeoutMs,
      );
    });
    const opened = await Promise.race([ctx.store(), deadline]).finally(() => clearTimeout(timer));
    if (opened.kind !== "fs") return passed("store", `${where}: connected`);
    try {
      accessSync(ctx.home, constants.W_OK);
    } catch (error) {
      return failed(
        "store",
        `${where}: ${errorMessage(error)}`,
        `Make ${ctx.home} writable for this user, or point UWF_HOME at a folder that is.`,
      );
    }
    return passed("store", `${where}: ${ctx.home} is writable`);
  } catch (error) {
    // The driver's own words (ECONNREFUSED, bad password) say more than the wrapper's.
    const cause = isUwfError(error) && error.cause !== undefined ? errorMessage(error.cause) : "";
    return failed(
      "store",
      `${where}: ${cause || errorMessage(error)}`,
      (isUwfError(error) ? error.hint : null) ??
        `Fix \`store:\` in config.yaml or UWF_STORE (fs, or a postgres://user@host/db URL); ${docsUrl("postgres.md")} shows how.`,
    );
  }
}

async function agentAndProviderChecks(
  ctx: CommandContext,
  data: Record<string, unknown>,
  timeoutMs: number,
): Promise<CheckResult[]> {
  const { findExecutable } = await import("@united-workforce/util");
  const { checkAgent, checkAgentModel } = await import("./setup/agent-checks.js");
  const { checkApiKeyEnv, checkReachable } = await import("./setup/checks.js");
  const agents = Object.entries(mapping(data.agents)).filter(
    (entry): entry is [string, { command: string; args?: string[]; model?: unknown }] =>
      typeof mapping(entry[1]).command === "string",
  );
  const providers = Object.entries(mapping(data.providers)).filter(
    (entry): entry is [string, { baseUrl: string; apiKey?: unknown; apiKeyEnv?: unknown }] =>
      typeof mapping(entry[1]).baseUrl === "string",
  );
  // Keys are read from the environment and the home's .env, as adapters read them.
  const env = { ...ctx.env };
  addHomeDotenv(ctx.home, env);
  const agentChecks = agents.map(async ([alias, agent]) => {
    const args = Array.isArray(agent.args) ? agent.args : [];
    const found = await checkAgent(
      alias,
      { command: agent.command, args },
      { env: ctx.env, cwd: ctx.cwd, versions: true, timeoutMs, findExecutable },
    );
    const model = checkAgentModel(alias, { ...agent, args }, data);
    return model === null ? found : [...found, model];
  });
  // Each provider check listens on ctx.signal while all run at once: make room for them, or
  // Node warns of a listener leak from the eleventh on.
  setMaxListeners(getMaxListeners(ctx.signal) + providers.length, ctx.signal);
  const providerChecks = providers.map(async ([name, provider]) => {
    const reachable = await checkReachable(`provider ${name}`, provider.baseUrl, {
      timeoutMs,
      signal: ctx.signal,
    });
    // A key in config.yaml wins over the variable, which then does not matter.
    if (provider.apiKey !== undefined || typeof provider.apiKeyEnv !== "string") return [reachable];
    return [reachable, checkApiKeyEnv(name, provider.apiKeyEnv, env, join(ctx.home, ".env"))];
  });
  const results = [
    ...(await Promise.all(agentChecks)).flat(),
    ...(await Promise.all(providerChecks)).flat(),
  ];
  if (agents.length === 0) {
    results.unshift({
      name: "agents",
      ok: true,
      detail:
        "none configured (uwf setup --agent <name> adds one; --agent <command> works without)",
      hint: null,
    });
  }
  return results;
}

function mapping(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}
