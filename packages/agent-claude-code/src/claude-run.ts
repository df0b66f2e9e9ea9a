import type { Writable } from "node:stream";
import {
  type AgentContext,
  type AgentRunResult,
  agentFailure,
  guidanceMessage,
  jsonLineHandler,
  spawnAgentCli,
  type ToolCallRecord,
} from "@united-workforce/agent-kit";
import { maskOccurrences } from "@united-workforce/util";
import { claudeInvocation, INSTALL_HINT } from "./invocation.js";
import { type ClaudeRun, ClaudeStreamReader } from "./stream.js";

// What a step runs, loaded by claude-agent.ts once the arguments ask for a step: spawning
// claude and reading its stream are no part of --help (DESIGN §14).

/** What `continue` needs to send a correction into the same Claude Code session. */
export interface ClaudeSession {
  sessionId: string;
}

/**
 * One `claude -p` run. Returns null only when `tolerateMissingSession` is set and Claude Code
 * does not know the session (its files were removed, or another CLAUDE_CONFIG_DIR is in use).
 */
export async function runClaude(
  ctx: AgentContext,
  prompt: string,
  resume: string | null,
  tolerateMissingSession: boolean,
): Promise<AgentRunResult | null> {
  const invocation = claudeInvocation(ctx, resume);
  // claude quotes the model server's error messages, which may echo the key.
  const mask = (text: string): string => maskOccurrences(text, invocation.env.ANTHROPIC_API_KEY);
  const reader = new ClaudeStreamReader((call) => ctx.progress(describeCall(call)));
  const input = new ClaudeInput(ctx, reader);
  const outcome = await spawnAgentCli({
    command: invocation.command,
    args: invocation.args,
    cwd: ctx.cwd,
    env: invocation.env,
    onStdin: (stdin) => input.open(stdin, prompt),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    onStdoutLine: jsonLineHandler(
      (event) => {
        reader.event(event);
        // Its answer is given: claude ends once it has answered what it has read.
        if (event.type === "result") input.close();
      },
      (invalid) => {
        reader.invalid(invalid);
        ctx.progress(`claude printed a line that is not JSON: ${mask(invalid.line).slice(0, 200)}`);
      },
    ),
    onStderrLine: (line) => {
      if (line.trim() !== "") ctx.stderr(`claude: ${mask(line)}\n`);
    },
    notFoundHint: INSTALL_HINT,
  });
  input.close();
  ctx.signal?.throwIfAborted();
  const run = reader.finish();

  if (tolerateMissingSession && isMissingSession(run, outcome.stderrTail)) return null;
  if (outcome.timedOut || outcome.exitCode !== 0 || run.result === null || run.result.isError) {
    // A rate limit, an overloaded API or a refused connection exits 75: uwf retries the step.
    throw agentFailure(
      failureMessage(run, outcome, mask),
      {
        status: run.result?.apiErrorStatus ?? null,
        text: run.result?.isError ? run.result.text : outcome.stderrTail,
      },
      `Check the model's endpoint, key and name (or claude's own login), then retry: uwf thread resume ${ctx.thread}`,
    );
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

/**
 * claude's stdin (`--input-format stream-json`): the prompt as the first user message, then each
 * `thread steer` note that arrives before claude answers, as another. claude reads them while it
 * works (one arriving mid-turn goes in before its next model request; one it reads after its
 * answer gets a turn of its own), so a note written before stdin closes reaches the model, and
 * one arriving later is not taken: it waits for the thread's next step.
 */
class ClaudeInput {
  #stdin: Writable | null = null;

  constructor(
    private readonly ctx: AgentContext,
    private readonly reader: ClaudeStreamReader,
  ) {}

  open(stdin: Writable, prompt: string): void {
    this.#stdin = stdin;
    this.#write(prompt);
    this.ctx.guidance.watch(() => this.#deliver());
    this.#deliver();
  }

  close(): void {
    this.#stdin?.end();
    this.#stdin = null;
  }

  #deliver(): void {
    if (this.#stdin === null) return;
    for (const note of this.ctx.guidance.takeWaiting(this.reader.turnsSoFar)) {
      this.#write(guidanceMessage(note));
    }
  }

  #write(text: string): void {
    const message = { type: "user", message: { role: "user", content: [{ type: "text", text }] } };
    this.#stdin?.write(`${JSON.stringify(message)}\n`);
  }
}

function failureMessage(
  run: ClaudeRun,
  outcome: { exitCode: number | null; signal: string | null; stderrTail: string },
  mask: (text: string) => string,
): string {
  const said = mask(
    run.result?.text.trim() || outcome.stderrTail.trim().split("\n").slice(-3).join(" "),
  );
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
