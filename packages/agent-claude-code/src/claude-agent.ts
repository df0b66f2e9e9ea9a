import {
  type AgentContext,
  type AgentRunResult,
  createAgent,
  jsonLineHandler,
  spawnAgentCli,
  type ToolCallRecord,
} from "@united-workforce/agent-kit";
import { UwfError } from "@united-workforce/util";
import { claudeInvocation } from "./invocation.js";
import { type ClaudeRun, ClaudeStreamReader } from "./stream.js";

export const ADAPTER_NAME = "uwf-claude-code";

/** What `continue` needs to send a correction into the same Claude Code session. */
interface ClaudeSession {
  sessionId: string;
}

export const INSTALL_HINT =
  "Install Claude Code (npm install -g @anthropic-ai/claude-code), or point --claude-bin / UWF_CLAUDE_BIN at its binary.";

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
  run: async (ctx) => {
    const resume = ctx.resumeSession?.sessionId ?? null;
    if (resume) {
      const result = await runClaude(ctx, ctx.prompt, resume, true);
      if (result !== null) return result;
      ctx.progress(`session ${resume} cannot be resumed here: starting a new one`);
    }
    return (await runClaude(ctx, ctx.prompt, null, false))!;
  },
  continue: async (ctx, session, correction) => {
    const { sessionId } = session as ClaudeSession;
    return (await runClaude(ctx, correction, sessionId, false))!;
  },
});

/**
 * One `claude -p` run. Returns null only when `tolerateMissingSession` is set and Claude Code
 * does not know the session (its files were removed, or another CLAUDE_CONFIG_DIR is in use).
 */
async function runClaude(
  ctx: AgentContext,
  prompt: string,
  resume: string | null,
  tolerateMissingSession: boolean,
): Promise<AgentRunResult | null> {
  const invocation = claudeInvocation(ctx, resume);
  const reader = new ClaudeStreamReader((call) => ctx.progress(describeCall(call)));
  const outcome = await spawnAgentCli({
    command: invocation.command,
    args: invocation.args,
    cwd: ctx.cwd,
    env: invocation.env,
    stdin: prompt,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    onStdoutLine: jsonLineHandler(
      (event) => reader.event(event),
      (invalid) => {
        reader.invalid(invalid);
        ctx.progress(`claude printed a line that is not JSON: ${invalid.line.slice(0, 200)}`);
      },
    ),
    onStderrLine: (line) => {
      if (line.trim() !== "") ctx.stderr(`claude: ${line}\n`);
    },
    notFoundHint: INSTALL_HINT,
  });
  ctx.signal?.throwIfAborted();
  const run = reader.finish();

  if (tolerateMissingSession && isMissingSession(run, outcome.stderrTail)) return null;
  if (outcome.timedOut || outcome.exitCode !== 0 || run.result === null || run.result.isError) {
    throw new UwfError("AGENT_FAILED", failureMessage(run, outcome), {
      hint: `Check the model's endpoint, key and name (or claude's own login), then retry: uwf thread resume ${ctx.thread}`,
    });
  }
  for (const denial of run.denials) {
    ctx.progress(
      `permission denied: ${denial.tool} ${summarise(denial.input)} (allow it with --permission-mode or --allowed-tools)`,
    );
  }
  return {
    text: run.result.text,
    usage: run.usage,
    detail: {
      model: run.model ?? invocation.model,
      sessionId: run.sessionId,
      turns: run.turns,
      claudeVersion: run.claudeVersion,
      resumed: resume,
      permissionDenials: run.denials,
      stopReason: run.result.stopReason,
      ...(run.invalidLines > 0 ? { nonJsonLines: run.invalidLines } : {}),
    },
    ...(run.sessionId ? { session: { sessionId: run.sessionId } satisfies ClaudeSession } : {}),
  };
}

function failureMessage(
  run: ClaudeRun,
  outcome: { exitCode: number | null; signal: string | null; stderrTail: string },
): string {
  const said = run.result?.text.trim() || outcome.stderrTail.trim().split("\n").slice(-3).join(" ");
  const how =
    outcome.exitCode !== null ? `exited ${outcome.exitCode}` : `was ended by ${outcome.signal}`;
  const status = run.result?.apiErrorStatus ? ` (HTTP ${run.result.apiErrorStatus})` : "";
  return `claude ${how}${status}${said ? `: ${said.slice(0, 1000)}` : " without a result"}`;
}

function isMissingSession(run: ClaudeRun, stderrTail: string): boolean {
  const text = `${run.result?.text ?? ""}\n${stderrTail}`;
  return /No conversation found with session ID/i.test(text);
}

function describeCall(call: ToolCallRecord): string {
  return `tool ${call.name} ${summarise(call.input)}`.trimEnd();
}

/** The most telling argument of a tool call, short: a path, a command, a pattern. */
function summarise(input: unknown): string {
  if (typeof input !== "object" || input === null) return "";
  const record = input as Record<string, unknown>;
  for (const key of ["file_path", "path", "command", "pattern", "url", "description"]) {
    const value = record[key];
    if (typeof value === "string") return value.length > 120 ? `${value.slice(0, 117)}…` : value;
  }
  return "";
}
