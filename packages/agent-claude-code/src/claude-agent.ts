import { createAgent } from "@united-workforce/agent-kit/entry";
import type { ClaudeSession } from "./claude-run.js";

export const ADAPTER_NAME = "uwf-claude-code";

/**
 * `uwf-claude-code`: runs `claude -p --output-format stream-json --verbose` in the step's
 * directory with the prompt on stdin, and turns its stream into turns, usage and a session
 * that the role's next visit (and a correction) resumes.
 */
export const claudeCodeAgent = createAgent({
  name: ADAPTER_NAME,
  options: {
    model: {
      description: "a model alias from config.yaml (its provider's URL and key are used)",
      valueName: "alias",
    },
    "claude-model": {
      description: "a model name passed to claude as it is, under your own Claude login",
      valueName: "name",
    },
    "permission-mode": {
      description: "claude's --permission-mode (default acceptEdits: edits in cwd allowed)",
      env: "UWF_CLAUDE_PERMISSION_MODE",
      valueName: "mode",
    },
    "allowed-tools": {
      description: 'claude\'s --allowedTools, e.g. "Bash(git:*) Edit"',
      env: "UWF_CLAUDE_ALLOWED_TOOLS",
      valueName: "tools",
    },
    "claude-bin": {
      description: "the claude binary (default: claude on PATH)",
      env: "UWF_CLAUDE_BIN",
      valueName: "path",
    },
    "max-retries": {
      description: "CLAUDE_CODE_MAX_RETRIES for the CLI's own API retries",
      env: "UWF_CLAUDE_MAX_RETRIES",
      valueName: "n",
    },
    "pass-env": {
      description: "more variables passed to claude by name (comma-separated)",
      env: "UWF_CLAUDE_PASS_ENV",
      valueName: "names",
    },
  },
  // The step's code (claude-run.ts) loads with a step: --help runs none of it.
  run: async (ctx) => {
    const { runClaude } = await import("./claude-run.js");
    const resume = ctx.resumeSession?.sessionId ?? null;
    if (resume) {
      const result = await runClaude(ctx, ctx.prompt, resume, true);
      if (result !== null) return result;
      ctx.progress(`session ${resume} cannot be resumed here: starting a new one`);
    }
    return (await runClaude(ctx, ctx.prompt, null, false))!;
  },
  continue: async (ctx, session, correction) => {
    const { runClaude } = await import("./claude-run.js");
    const { sessionId } = session as ClaudeSession;
    return (await runClaude(ctx, correction, sessionId, false))!;
  },
});
