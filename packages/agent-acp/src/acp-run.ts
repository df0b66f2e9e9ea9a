import {
  type AcpAgent,
  type AcpEvent,
  type AcpSession,
  type AgentContext,
  type AgentRunResult,
  agentFailure as classifiedFailure,
  guidanceMessage,
  PERMISSION_POLICIES,
  type PermissionPolicy,
  PromptCancelledError,
  type PromptOutcome,
  startAcpAgent,
  sumUsage,
} from "@united-workforce/agent-kit";
import { errorMessage, UwfError } from "@united-workforce/util";
import { agentFailure, apiErrorIn, clip, failed, shortMessage, stopHint } from "./acp-failures.js";
import type { AgentPool } from "./agent-pool.js";
import { type LaunchPlan, planLaunch } from "./launch.js";
import { adapterVersion } from "./version.js";

// What a step runs, loaded by acp-agent.ts once the arguments ask for a step: the ACP client,
// the agent's process and the launch plan are no part of --help (DESIGN §14).

/** What `continue` needs to send a correction into the same session. */
interface AcpStepSession {
  agent: AcpAgent;
  plan: LaunchPlan;
  session: AcpSession;
  resumed: boolean;
}

/** A step's first run: start the agent, open (or load) its session, send the prompt. */
export async function runStep(
  ctx: AgentContext,
  pool: AgentPool,
  defaultPreset: string | undefined,
): Promise<AgentRunResult> {
  const plan = planLaunch({
    preset: optionString(ctx, "preset") ?? (ctx.passthrough.length > 0 ? undefined : defaultPreset),
    passthrough: ctx.passthrough,
    bin: optionString(ctx, "bin"),
    model: optionString(ctx, "model"),
    mode: optionString(ctx, "mode"),
    passEnv: optionString(ctx, "pass-env"),
    home: ctx.home,
    env: ctx.env,
    progress: ctx.progress,
  });
  const agent = await start(ctx, plan);
  pool.add(agent);
  const state = await openSession(ctx, agent, plan);
  return prompt(ctx, state, ctx.prompt);
}

/** A correction, in the same session. */
export function continueStep(
  ctx: AgentContext,
  session: unknown,
  correction: string,
): Promise<AgentRunResult> {
  return prompt(ctx, session as AcpStepSession, correction);
}

async function start(ctx: AgentContext, plan: LaunchPlan): Promise<AcpAgent> {
  const permission = permissionPolicy(ctx);
  try {
    const agent = await startAcpAgent({
      command: plan.command,
      args: plan.args,
      cwd: ctx.cwd,
      env: plan.env,
      clientInfo: { name: ctx.agent, version: adapterVersion() },
      permission,
      fsRoot: ctx.options["client-fs"] === true ? ctx.cwd : null,
      onEvent: (event) => report(ctx, event, permission),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    const who = [agent.hello.name, agent.hello.version].filter(Boolean).join(" ");
    ctx.progress(`started ${plan.label}${who ? ` (${who})` : ""}`);
    return agent;
  } catch (error) {
    ctx.signal?.throwIfAborted();
    if (/cannot start ".*": .*ENOENT/.test(errorMessage(error))) {
      throw new UwfError("AGENT_FAILED", `"${plan.command}" not found in PATH`, {
        hint: plan.preset
          ? `${plan.preset.install} Or give its path with --bin.`
          : "Check the agent command after `--` (use an absolute path if it is not on PATH).",
      });
    }
    throw agentFailure(`${plan.label} did not start as an ACP agent`, error);
  }
}

/**
 * `session/load` when this role's previous session is ours and the agent can load sessions,
 * else (or when loading fails) `session/new`; then the mode.
 */
async function openSession(
  ctx: AgentContext,
  agent: AcpAgent,
  plan: LaunchPlan,
): Promise<AcpStepSession> {
  const previous = ctx.resumeSession;
  let session: AcpSession | null = null;
  let resumed = false;
  if (previous && agent.hello.loadSession) {
    try {
      session = await agent.client.loadSession(previous.sessionId, ctx.cwd);
      resumed = true;
      ctx.progress(`resumed session ${previous.sessionId}`);
    } catch (error) {
      if (agent.client.connection.closed)
        throw await failed(
          agent,
          `${plan.label} failed to load session ${previous.sessionId}`,
          error,
        );
      // Gemini CLI 0.61 cannot load a session in the minute it was created ("No previous
      // sessions found"). The prompt holds this role's previous step either way.
      ctx.progress(
        `could not resume session ${previous.sessionId} (${shortMessage(error)}); starting a new session`,
      );
    }
  } else if (previous) {
    ctx.progress(`${plan.label} cannot load sessions; starting a new session`);
  }
  try {
    session ??= await agent.client.newSession(ctx.cwd);
  } catch (error) {
    throw await failed(agent, `${plan.label} did not open a session`, error);
  }
  await setMode(ctx, agent, plan, session);
  return { agent, plan, session, resumed };
}

async function setMode(
  ctx: AgentContext,
  agent: AcpAgent,
  plan: LaunchPlan,
  session: AcpSession,
): Promise<void> {
  const wanted = plan.mode;
  if (!wanted || session.modes?.currentModeId === wanted) return;
  const offered = session.modes?.availableModes ?? [];
  if (!offered.includes(wanted)) {
    throw new UwfError(
      "USAGE",
      `${plan.label} offers no session mode "${wanted}"${offered.length ? `; it offers: ${offered.join(", ")}` : " (it reports no modes)"}`,
      { hint: "Pick one of those with --mode, or leave --mode out." },
    );
  }
  try {
    await agent.client.setMode(session.sessionId, wanted);
  } catch (error) {
    throw await failed(agent, `${plan.label} refused session mode "${wanted}"`, error);
  }
  ctx.progress(`session mode ${wanted}`);
}

/**
 * `thread steer` follow-up prompts a step sends at most: an agent steered without end still
 * ends its step, and the notes that come after wait for the next step's prompt.
 */
export const MAX_GUIDANCE_PROMPTS = 8;

/**
 * Prompt the agent, then give it the `thread steer` notes that arrived meanwhile. ACP takes no
 * input in the middle of a turn, so each time a turn ends with notes waiting they go in a
 * follow-up prompt in the same session; the step's answer is the last turn's.
 */
async function prompt(
  ctx: AgentContext,
  state: AcpStepSession,
  text: string,
): Promise<AgentRunResult> {
  const { agent, plan, session } = state;
  let turnRunning = true;
  ctx.guidance.watch(() => {
    if (turnRunning) ctx.progress(`guidance waiting; ${plan.label} gets it when its turn ends`);
  });
  const prompts: PromptOutcome[] = [];
  let input = text;
  for (;;) {
    turnRunning = true;
    prompts.push(await promptTurn(ctx, state, input));
    turnRunning = false;
    if (prompts.length > MAX_GUIDANCE_PROMPTS) break;
    const turnsSoFar = prompts.reduce((sum, { turn }) => sum + turn.turns.length, 0);
    const notes = await ctx.guidance.take(turnsSoFar);
    if (notes.length === 0) break;
    input = notes.map((note) => guidanceMessage(note)).join("\n\n");
  }
  const notices = prompts.flatMap(({ turn }) => turn.notices);
  return {
    text: prompts.at(-1)!.turn.answer,
    session: state,
    usage: sumUsage(prompts.map(({ turn, result }) => turn.usage(result))),
    detail: {
      sessionId: session.sessionId,
      model: plan.model ?? session.model,
      turns: prompts.flatMap(({ turn }) => turn.records()),
      acp: {
        agent: plan.label,
        agentInfo: { name: agent.hello.name, version: agent.hello.version },
        resumed: state.resumed,
        mode: plan.mode,
        permissions: [...agent.client.permissions],
        ...(notices.length > 0 ? { notices } : {}),
      },
    },
  };
}

/** One `session/prompt` that must end with an answer: a cancel, a refusal or an error throws. */
async function promptTurn(
  ctx: AgentContext,
  state: AcpStepSession,
  text: string,
): Promise<PromptOutcome> {
  const { agent, plan, session } = state;
  let outcome: PromptOutcome;
  try {
    outcome = await agent.client.prompt(session.sessionId, text, ctx.signal);
  } catch (error) {
    if (error instanceof PromptCancelledError || ctx.signal?.aborted) {
      // Timeout or Ctrl-C: the turn is cancelled (or given up on); nothing of it may linger.
      ctx.progress(`${errorMessage(error)}; ending ${plan.label}`);
      await agent.process.killGroup();
      throw error;
    }
    // A rate limit or an overloaded model the agent reports exits 75: uwf retries the step.
    throw await failed(agent, `${plan.label} failed the prompt`, error, { transient: true });
  }
  const { turn, stopReason } = outcome;
  if (stopReason !== "end_turn") {
    throw new UwfError(
      "AGENT_FAILED",
      `${plan.label} stopped the turn with "${stopReason}" instead of answering`,
      {
        hint: stopHint(stopReason),
      },
    );
  }
  const apiError = apiErrorIn(turn.answer);
  if (apiError) {
    // codex-acp reports a failed model request as answer text and a normal end_turn: a rate
    // limit or an overloaded server is then a transient failure (exit 75), as in uwf-codex.
    throw classifiedFailure(
      `${plan.label} answered with an API error: ${clip(apiError)}`,
      { text: apiError },
      "Check the model, its provider and key (uwf config list), then run `uwf thread resume`.",
    );
  }
  return outcome;
}

function report(ctx: AgentContext, event: AcpEvent, policy: PermissionPolicy): void {
  if (event.type === "notice") {
    const { severity, title, description } = event.notice;
    ctx.progress(`${severity}: ${title}${description ? ` (${description})` : ""}`);
    return;
  }
  if (event.type === "permission") {
    const { title, decision, optionId } = event.decision;
    const how = optionId ? optionId : "no fitting option: cancelled";
    ctx.progress(`permission "${title}": ${decision} by policy ${policy} (${how})`);
    return;
  }
  const { call } = event;
  if (call.status === "pending" || (call.status === null && call.title)) {
    ctx.progress(`tool: ${call.title}${call.kind ? ` (${call.kind})` : ""}`);
  } else if (call.status === "failed") {
    ctx.progress(`tool failed: ${call.title}`);
  }
}

function permissionPolicy(ctx: AgentContext): PermissionPolicy {
  const value = optionString(ctx, "permission") ?? "allow";
  if (!(PERMISSION_POLICIES as readonly string[]).includes(value)) {
    throw new UwfError(
      "USAGE",
      `--permission must be ${PERMISSION_POLICIES.join(" or ")}, got "${value}"`,
      {
        hint: "allow lets the agent use the tools it asks for; deny refuses every request.",
      },
    );
  }
  return value as PermissionPolicy;
}

function optionString(ctx: AgentContext, name: string): string | undefined {
  const value = ctx.options[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}
