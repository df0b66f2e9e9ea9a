import type { AgentDefinition } from "@united-workforce/agent-kit/entry";
import type { AgentPool } from "./agent-pool.js";
import { PRESET_NAMES } from "./presets.js";

/**
 * The uwf-acp definition: any Agent Client Protocol agent over stdio, chosen by `--preset` or
 * given after `--`. `defaultPreset` makes a preset binary (`uwf-hermes`).
 */
export function acpDefinition(options: {
  name: string;
  pool: AgentPool;
  defaultPreset?: string;
}): AgentDefinition {
  const { name, pool, defaultPreset } = options;
  return {
    name,
    passthrough: "agent command…",
    options: {
      preset: {
        description: `a known ACP agent: ${PRESET_NAMES.join(", ")}${defaultPreset ? ` (default ${defaultPreset})` : ""}`,
        valueName: "name",
      },
      bin: {
        description: "run this binary instead of the preset's command",
        env: "UWF_ACP_BIN",
        valueName: "path",
      },
      model: {
        description: "a model alias from config.yaml (or, for gemini and claude, a model name)",
        valueName: "alias",
      },
      mode: {
        description: "the session mode to set (claude defaults to acceptEdits)",
        valueName: "id",
      },
      permission: {
        description: "how permission requests are answered: allow (default) or deny",
        env: "UWF_ACP_PERMISSION",
        valueName: "policy",
      },
      "client-fs": {
        description: "serve the agent's file reads/writes, confined to the step's cwd",
        type: "boolean",
      },
      "pass-env": {
        description: "comma-separated variables the agent may also see",
        valueName: "names",
      },
    },
    // The step's code (acp-run.ts) loads with a step: --help runs none of it.
    run: async (ctx) => (await import("./acp-run.js")).runStep(ctx, pool, defaultPreset),
    continue: async (ctx, session, correction) =>
      (await import("./acp-run.js")).continueStep(ctx, session, correction),
  };
}
