import type { ServerResponse } from "node:http";
import {
  arr,
  chunks,
  newId,
  type Obj,
  obj,
  sendApiError,
  sendJson,
  sse,
  sseStart,
  str,
} from "./json.js";
import { chooseSteps, type FakeLlmScript, pickReply, type Reply, servedReply } from "./script.js";

/** OpenAI Chat Completions: POST …/chat/completions, streaming and not. */
export async function openaiChat(
  res: ServerResponse,
  body: Obj,
  raw: string,
  script: FakeLlmScript,
  defaultText: string,
  hold: (reply: Reply) => Promise<void>,
): Promise<Obj> {
  const { name: scenario, steps } = chooseSteps(script, raw, defaultText);
  const turn = arr(body.messages).filter((m) => obj(m).role === "assistant").length;
  const tools = arr(body.tools)
    .map((t) => str(obj(obj(t).function).name) ?? str(obj(t).name))
    .filter((n): n is string => n !== undefined);
  const reply = pickReply(steps, turn, tools, defaultText);
  await hold(reply);
  if (reply.kind === "error") {
    sendApiError(res, "openai", reply);
    return { scenario, turn, reply: "error", status: reply.status };
  }
  const toolCall: ToolCall | null =
    reply.kind === "tool"
      ? {
          id: newId("call"),
          type: "function",
          function: { name: reply.name, arguments: JSON.stringify(reply.args) },
        }
      : null;
  const completion: Completion = {
    id: newId("chatcmpl"),
    created: Math.floor(Date.now() / 1000),
    model: str(body.model) ?? "gpt-fake",
    text: reply.text,
    toolCall,
    finish: toolCall ? "tool_calls" : "stop",
  };
  const info: Obj = { ...servedReply(scenario, turn, reply), stream: Boolean(body.stream) };
  if (body.stream) {
    streamCompletion(res, completion, Boolean(obj(body.stream_options).include_usage));
    return info;
  }
  const message: Obj = { role: "assistant", content: reply.text || (toolCall ? null : "") };
  if (toolCall) message.tool_calls = [toolCall];
  sendJson(res, 200, {
    id: completion.id,
    object: "chat.completion",
    created: completion.created,
    model: completion.model,
    choices: [{ index: 0, message, finish_reason: completion.finish, logprobs: null }],
    usage: USAGE,
  });
  return info;
}

interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

interface Completion {
  id: string;
  created: number;
  model: string;
  text: string;
  toolCall: ToolCall | null;
  finish: string;
}

const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

/** The completion as chunks: the role, the text in pieces, the tool call's arguments, [DONE]. */
function streamCompletion(res: ServerResponse, completion: Completion, withUsage: boolean): void {
  const { id, created, model, toolCall } = completion;
  sseStart(res);
  const chunk = (delta: Obj, finishReason: string | null = null): void =>
    sse(res, null, {
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
    });
  chunk({ role: "assistant", content: "" });
  if (completion.text) for (const piece of chunks(completion.text)) chunk({ content: piece });
  if (toolCall) {
    chunk({
      tool_calls: [
        {
          index: 0,
          id: toolCall.id,
          type: "function",
          function: { name: toolCall.function.name, arguments: "" },
        },
      ],
    });
    for (const piece of chunks(toolCall.function.arguments, 2)) {
      chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] });
    }
  }
  chunk({}, completion.finish);
  if (withUsage) {
    sse(res, null, {
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [],
      usage: USAGE,
    });
  }
  sse(res, null, "[DONE]");
  res.end();
}
