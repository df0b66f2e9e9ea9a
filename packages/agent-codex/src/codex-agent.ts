import { createAgent } from "@united-workforce/agent-kit/entry";

export const ADAPTER_NAME = "uwf-codex";

/**
 * `uwf-codex`: runs the step in `codex exec --json`, the prompt on stdin, in the step's
 * directory, with a minimal environment. A role's next visit resumes its codex session; a
 * correction goes into the same session.
 */
export const codexAgent = createAgent({
  name: ADAPTER_NAME,
  options: {
    model: {
      description: "a model alias from config.yaml (default: codex's own login and settings)",
      valueName: "alias",
    },
    sandbox: {
      description: "read-only, workspace-write (default) or danger-full-access",
      env: "UWF_CODEX_SANDBOX",
      valueName: "mode",
    },
    "codex-bin": {
      description: "the codex binary (default: codex on PATH)",
      env: "UWF_CODEX_BIN",
      valueName: "path",
    },
  },
  // The step's code (codex-run.ts) loads with a step: --help runs none of it.
  run: async (ctx) => (await import("./codex-run.js")).runStep(ctx),
  continue: async (ctx, state, correction) =>
    (await import("./codex-run.js")).continueStep(ctx, state, correction),
});
