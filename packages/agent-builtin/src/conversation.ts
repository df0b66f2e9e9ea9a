import {
  type ChatMessage,
  chatCompletion,
  ModelRequestError,
  type Sleep,
  sumUsage,
  type ToolCall,
  type ToolDefinition,
  type TurnRecord,
} from "@united-workforce/agent-kit";
import type { Usage } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import type { Limits } from "./limits.js";
import type { Endpoint } from "./model.js";
import { describeCall, runTool } from "./tools/tools.js";
import type { Workspace } from "./tools/workspace.js";

/**
 * One step's conversation with the model, kept between `run` and the repairs (`continue`),
 * which append to it. The limits count over all of it.
 */
export interface Conversation {
  sessionId: string;
  endpoint: Endpoint;
  limits: Limits;
  tools: ToolDefinition[];
  messages: ChatMessage[];
  turnsUsed: number;
  /** When the step's time is up (epoch ms). */
  deadline: number;
}

export interface ConversationDeps {
  workspace: Workspace;
  commandEnv: Record<string, string>;
  progress: (line: string) => void;
  signal?: AbortSignal;
  now: () => number;
  /** The retry wait; tests inject one that records instead of waiting. */
  sleep?: Sleep;
  /**
   * `thread steer` notes given since the last model request, as user messages, taken (and
   * recorded as delivered) now; `turnsTaken`: the step's model turns so far.
   */
  guidance?: (turnsTaken: number) => Promise<string[]>;
}

export interface ConversationResult {
  /** The final assistant message. */
  text: string;
  turns: TurnRecord[];
  usage: Partial<Usage>;
}

/**
 * Ask the model, run the tools it calls, give it their results, and repeat until it answers
 * without calling a tool. A limit reached first ends the run with an error, unless the model
 * already wrote an answer (frontmatter) next to a tool call: that answer is used.
 */
export async function converse(
  conversation: Conversation,
  deps: ConversationDeps,
): Promise<ConversationResult> {
  const { limits } = conversation;
  const turns: TurnRecord[] = [];
  let answer: string | null = null;
  const finish = (text: string): ConversationResult => ({
    text,
    turns,
    usage: { ...sumUsage(turns.map((turn) => turn.usage ?? undefined)), turns: turns.length },
  });
  const limitReached = (what: string, flag: string): ConversationResult => {
    if (answer !== null) {
      deps.progress(`reached ${what}; using the answer the model already wrote`);
      return finish(answer);
    }
    throw new UwfError(
      "AGENT_FAILED",
      `uwf-builtin reached ${what} before the model gave a final answer`,
      {
        hint: `Raise it with ${flag} (in the agent's args in $UWF_HOME/config.yaml) or give the role less to do, then run \`uwf thread resume <thread>\`.`,
        details: { turns: conversation.turnsUsed },
      },
    );
  };
  const timeLimit = `its time limit of ${limits.maxMs / 1000} s`;

  for (;;) {
    if (conversation.turnsUsed >= limits.maxTurns) {
      const turns = `${limits.maxTurns} model turn${limits.maxTurns === 1 ? "" : "s"}`;
      return limitReached(`its limit of ${turns}`, "--max-turns");
    }
    const remaining = conversation.deadline - deps.now();
    if (remaining <= 0) return limitReached(timeLimit, "--max-seconds");
    const timeoutMs = Math.min(limits.requestTimeoutMs, remaining);
    // Guidance steered while the model or the tools worked goes in before the next request.
    for (const note of (await deps.guidance?.(conversation.turnsUsed)) ?? []) {
      conversation.messages.push({ role: "user", content: note });
    }
    let completion: Completion;
    try {
      completion = await askModel(conversation, deps, timeoutMs);
    } catch (error) {
      // The request was cut short by the step's deadline, not by its own timeout.
      if (
        error instanceof ModelRequestError &&
        error.kind === "timeout" &&
        timeoutMs < limits.requestTimeoutMs
      ) {
        return limitReached(timeLimit, "--max-seconds");
      }
      throw error;
    }
    conversation.turnsUsed++;
    const { message } = completion;
    conversation.messages.push(message);
    const text = message.content ?? "";
    const turn: TurnRecord = {
      text,
      toolCalls: [],
      usage: Object.keys(completion.usage).length > 0 ? completion.usage : null,
    };
    turns.push(turn);
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) return finish(text);
    if (looksLikeAnswer(text)) answer = text;
    await runToolCalls(conversation, deps, calls, turn);
  }
}

type Completion = Awaited<ReturnType<typeof chatCompletion>>;

/** One model request with the whole conversation; its retries are reported as progress. */
function askModel(
  conversation: Conversation,
  deps: ConversationDeps,
  timeoutMs: number,
): Promise<Completion> {
  const { endpoint, limits } = conversation;
  return chatCompletion({
    baseUrl: endpoint.baseUrl,
    apiKey: endpoint.apiKey,
    model: endpoint.model,
    messages: conversation.messages,
    tools: conversation.tools,
    timeoutMs,
    retry: limits.retry,
    onRetry: (notice) =>
      deps.progress(
        `model: ${notice.reason}; retrying in ${(notice.delayMs / 1000).toFixed(1)} s (try ${notice.attempt} of ${notice.attempts})`,
      ),
    ...(deps.signal ? { signal: deps.signal } : {}),
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
  });
}

/** Run the tools the model called, in order, answering each in the conversation and the turn. */
async function runToolCalls(
  conversation: Conversation,
  deps: ConversationDeps,
  calls: ToolCall[],
  turn: TurnRecord,
): Promise<void> {
  const { limits } = conversation;
  const offered = conversation.tools.map((tool) => tool.function.name);
  for (const call of calls) {
    deps.signal?.throwIfAborted();
    const { name, arguments: rawArgs } = call.function;
    deps.progress(describeCall(name, safeParse(rawArgs)));
    const left = Math.max(1, conversation.deadline - deps.now());
    const outcome = await runTool(
      name,
      rawArgs,
      {
        workspace: deps.workspace,
        maxOutputBytes: limits.maxOutputBytes,
        commandTimeoutMs: Math.min(limits.commandTimeoutMs, left),
        commandEnv: deps.commandEnv,
        ...(deps.signal ? { signal: deps.signal } : {}),
      },
      offered,
    );
    conversation.messages.push({ role: "tool", tool_call_id: call.id, content: outcome.output });
    turn.toolCalls.push({
      name,
      input: outcome.input,
      output: outcome.output,
      isError: outcome.isError,
    });
  }
}

/** An answer starts with frontmatter (or a fenced YAML block), as the output format asks. */
function looksLikeAnswer(text: string): boolean {
  return /^\uFEFF?\s*(---\s*\n|```ya?ml)/.test(text);
}

function safeParse(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
