import { type AgentContext, guidanceMessage } from "@united-workforce/agent-kit";
import { newUlid } from "@united-workforce/util";
import { type Conversation, type ConversationDeps, converse } from "./conversation.js";
import { readLimits } from "./limits.js";
import { resolveEndpoint } from "./model.js";
import { previousConversation } from "./resume.js";
import { systemPrompt } from "./system-prompt.js";
import { commandEnvironment } from "./tools/run-command.js";
import { toolDefinitions } from "./tools/tools.js";
import { Workspace } from "./tools/workspace.js";

// What a step runs, loaded by builtin-agent.ts once the arguments ask for a step: the model
// client, the tools and the workspace are no part of --help (DESIGN §14).

/** A step's first run: a new conversation, or the one the role's previous visit left. */
export async function runStep(ctx: AgentContext) {
  const limits = readLimits(ctx.options);
  const endpoint = resolveEndpoint(ctx);
  const workspace = new Workspace(ctx.cwd);
  const tools = toolDefinitions({ runCommand: limits.runCommand });
  const previous = previousConversation(ctx);
  const conversation: Conversation = {
    sessionId: previous?.sessionId ?? `builtin-${newUlid()}`,
    endpoint,
    limits,
    tools,
    messages: [
      {
        role: "system",
        content: systemPrompt({
          root: workspace.root,
          tools: tools.map((tool) => tool.function.name),
          outputFormat: ctx.outputFormat,
        }),
      },
      ...(previous?.messages ?? []),
      { role: "user", content: ctx.prompt },
    ],
    turnsUsed: 0,
    deadline: Date.now() + limits.maxMs,
  };
  const session: BuiltinSession = {
    conversation,
    deps: {
      workspace,
      commandEnv: commandEnvironment(ctx.env),
      progress: ctx.progress,
      now: Date.now,
      guidance: async (turnsTaken) =>
        (await ctx.guidance.take(turnsTaken)).map((note) => guidanceMessage(note)),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    },
  };
  const resumed = previous ? `, resuming session ${conversation.sessionId}` : "";
  ctx.progress(`model ${endpoint.alias} (${endpoint.model} at ${endpoint.baseUrl})${resumed}`);
  return answer(session);
}

/** A correction, appended to the same conversation. */
export async function continueStep(state: unknown, correction: string) {
  const session = state as BuiltinSession;
  session.conversation.messages.push({ role: "user", content: correction });
  return answer(session);
}

interface BuiltinSession {
  conversation: Conversation;
  deps: ConversationDeps;
}

async function answer(session: BuiltinSession) {
  const { conversation } = session;
  const result = await converse(conversation, session.deps);
  return {
    text: result.text,
    session,
    usage: result.usage,
    detail: {
      model: conversation.endpoint.model,
      modelAlias: conversation.endpoint.alias,
      baseUrl: conversation.endpoint.baseUrl,
      sessionId: conversation.sessionId,
      turns: result.turns,
      // What the role's next visit resumes (see resume.ts).
      conversation: conversation.messages,
    },
  };
}
