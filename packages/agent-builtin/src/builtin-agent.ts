import { createAgent } from "@united-workforce/agent-kit/entry";
import { LIMIT_OPTIONS } from "./limits.js";

/**
 * `uwf-builtin`: a tool-using loop over any OpenAI-compatible chat-completions endpoint. The
 * conversation lives in the session object, so a repair appends the correction to it and
 * keeps going. The conversation is also kept in the step's detail, so the role's next visit
 * continues it (`ctx.resumeSession`, see resume.ts).
 */
export const builtinAgent = createAgent({
  name: "uwf-builtin",
  options: {
    model: {
      description: "model alias from config.yaml (default: defaultModel)",
      valueName: "alias",
    },
    ...LIMIT_OPTIONS,
  },
  // The step's code (builtin-run.ts) loads with a step: --help runs none of it.
  run: async (ctx) => (await import("./builtin-run.js")).runStep(ctx),
  continue: async (_ctx, state, correction) =>
    (await import("./builtin-run.js")).continueStep(state, correction),
});
