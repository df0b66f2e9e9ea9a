import {
  type AgentContext,
  type AgentRunResult,
  agentFailure,
  jsonLineHandler,
  spawnAgentCli,
} from "@united-workforce/agent-kit";
import { maskOccurrences } from "@united-workforce/util";
import {
  CODEX_INSTALL_HINT,
  type CodexModel,
  codexArgs,
  codexEnv,
  isCodexSessionId,
  parseSandbox,
  type SandboxMode,
} from "./command.js";
import { CodexEventReader, type CodexRunReport, type CodexTokenTotals } from "./events.js";
import { resolveCodexModel } from "./model.js";
import { codexHome, findRollout, rolloutFailureStatus, rolloutTotals } from "./rollout.js";
import { NO_TOKENS, runUsage } from "./usage.js";

// What a step runs, loaded by codex-agent.ts once the arguments ask for a step: spawning codex,
// reading its events and rollouts are no part of --help (DESIGN §14).

/** Stderr lines of a failed codex run quoted in the error (its tail; the rest is noise). */
const STDERR_LINES_QUOTED = 5;

interface CodexSettings {
  bin: string;
  sandbox: SandboxMode;
  model: CodexModel | null;
}

/** What `continue` needs to send a correction into the same codex session. */
interface CodexSession {
  settings: CodexSettings;
  threadId: string | null;
  /** The session's token totals after the last run, to tell the next run's own usage. */
  totals: CodexTokenTotals;
}

/** A step's first run: a new session, or the role's session from its previous visit. */
export async function runStep(ctx: AgentContext): Promise<AgentRunResult> {
  const settings = settingsFrom(ctx);
  const resume = sessionToResume(ctx);
  if (resume) ctx.progress(`resuming codex session ${resume.threadId}`);
  const result = await runCodex(ctx, {
    settings,
    resume: resume?.threadId ?? null,
    prompt: ctx.prompt,
    baseline: resume?.totals ?? NO_TOKENS,
  });
  result.detail = {
    ...result.detail,
    codex: { sandbox: settings.sandbox, resumed: resume !== null },
  };
  return result;
}

/** A correction, in the same session. */
export async function continueStep(
  ctx: AgentContext,
  state: unknown,
  correction: string,
): Promise<AgentRunResult> {
  const session = state as CodexSession;
  // Without a session id nothing can be resumed: ask again from the start, correction added.
  const resume = session.threadId;
  return await runCodex(ctx, {
    settings: session.settings,
    resume,
    prompt: resume ? correction : `${ctx.prompt}\n\n${correction}`,
    baseline: resume ? session.totals : NO_TOKENS,
  });
}

function settingsFrom(ctx: AgentContext): CodexSettings {
  const alias = ctx.options.model;
  const bin = ctx.options["codex-bin"];
  return {
    bin: typeof bin === "string" && bin !== "" ? bin : "codex",
    sandbox: parseSandbox(ctx.options.sandbox),
    model:
      typeof alias === "string" && alias !== ""
        ? resolveCodexModel(ctx.home, alias, ctx.env)
        : null,
  };
}

/**
 * The role's codex session from its previous visit, with its token totals so far; null (a new
 * session) when there is none, or when codex no longer has it.
 */
function sessionToResume(ctx: AgentContext): { threadId: string; totals: CodexTokenTotals } | null {
  const record = ctx.resumeSession;
  if (!record) return null;
  if (!isCodexSessionId(record.sessionId)) {
    ctx.progress(`the recorded codex session id is not valid; starting a new session`);
    return null;
  }
  const home = codexHome(ctx.env);
  const rollout = home ? findRollout(home, record.sessionId) : null;
  if (!rollout) {
    ctx.progress(
      `codex session ${record.sessionId} is not in ${home ?? "CODEX_HOME"} any more; starting a new session`,
    );
    return null;
  }
  return { threadId: record.sessionId, totals: rolloutTotals(rollout) ?? NO_TOKENS };
}

async function runCodex(
  ctx: AgentContext,
  run: {
    settings: CodexSettings;
    resume: string | null;
    prompt: string;
    baseline: CodexTokenTotals;
  },
): Promise<AgentRunResult> {
  const { settings } = run;
  // Codex quotes the model server's error bodies, which may echo the key.
  const mask = (text: string): string => maskOccurrences(text, settings.model?.apiKey);
  const reader = new CodexEventReader(ctx.cwd, (line) => ctx.progress(mask(line)));
  const outcome = await spawnAgentCli({
    command: settings.bin,
    args: codexArgs({ sandbox: settings.sandbox, model: settings.model, resume: run.resume }),
    cwd: ctx.cwd,
    env: codexEnv(ctx.env, settings.model),
    stdin: run.prompt,
    onStdoutLine: jsonLineHandler(
      (event) => reader.take(event),
      (invalid) => reader.takeInvalid(invalid.line),
    ),
    notFoundHint: CODEX_INSTALL_HINT,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  const report = reader.report();
  if (outcome.aborted) throw new Error("interrupted: codex was stopped");
  const failed = failureOf(report, outcome.exitCode, outcome.signal, outcome.stderrTail, () =>
    failureStatus(ctx, report.threadId),
  );
  const failure = failed === null ? null : mask(failed);
  if (failure) {
    // A rate limit, a usage limit or an overloaded model server exits 75: uwf retries the step.
    throw agentFailure(
      failure,
      { text: failure },
      "The thread is suspended; fix the cause, then run `uwf thread resume <thread>`.",
    );
  }
  const threadId = report.threadId ?? run.resume;
  const session: CodexSession = { settings, threadId, totals: report.totals ?? run.baseline };
  return {
    text: report.finalMessage ?? "",
    usage: runUsage(report.totals, run.baseline),
    session,
    detail: {
      model: settings.model?.name ?? null,
      sessionId: threadId,
      turns: report.turns,
      ...(report.warnings.length > 0 ? { codexWarnings: report.warnings.map(mask) } : {}),
      ...(report.invalidLines.length > 0
        ? { codexInvalidLines: report.invalidLines.map(mask) }
        : {}),
    },
  };
}

/** The HTTP status codex recorded for the session's failure, when it hid it from its message. */
function failureStatus(ctx: AgentContext, threadId: string | null): string | null {
  const home = codexHome(ctx.env);
  const rollout =
    home && threadId && isCodexSessionId(threadId) ? findRollout(home, threadId) : null;
  return rollout ? rolloutFailureStatus(rollout) : null;
}

/** Why a codex run failed, in codex's words; null when it did not. */
function failureOf(
  report: CodexRunReport,
  exitCode: number | null,
  signal: NodeJS.Signals | null,
  stderrTail: string,
  httpStatus: () => string | null,
): string | null {
  const reported = report.failures.at(-1);
  if (reported) {
    const status = httpStatus();
    const code = status?.replace(/^HTTP /, "").split(" ")[0];
    return code && !reported.includes(code)
      ? `codex failed: ${reported} (${status} from the model's server)`
      : `codex failed: ${reported}`;
  }
  if (exitCode === 0) return null;
  const how = signal ? `was killed by ${signal}` : `exited with code ${exitCode}`;
  const tail = stderrTail
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .slice(-STDERR_LINES_QUOTED);
  return tail.length > 0 ? `codex ${how}:\n${tail.join("\n")}` : `codex ${how}`;
}
