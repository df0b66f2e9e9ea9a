import type { ServerResponse } from "node:http";
import {
  arr,
  chunks,
  newId,
  type Obj,
  obj,
  sendApiError,
  sendJson,
  sleep,
  sse,
  sseStart,
  str,
} from "./json.js";
import { chooseSteps, type FakeLlmScript, pickReply } from "./script.js";

/** OpenAI Chat Completions: POST …/chat/completions, streaming and not. */
export async function openaiChat(
  res: ServerResponse,
  body: Obj,
  raw: string,
  script: FakeLlmScript,
  defaultText: string,
): Promise<Obj> {
  const { name: scenario, steps } = chooseSteps(script, raw, defaultText);
  const turn = arr(body.messages).filter((m) => obj(m).role === "assistant").length;
  const tools = arr(body.tools)
    .map((t) => str(obj(obj(t).function).name) ?? str(obj(t).name))
    .filter((n): n is string => n !== undefined);
  const reply = pickReply(steps, turn, tools, defaultText);
  if (reply.delayMs) await sleep(reply.delayMs);
  if (reply.kind === "error") {
    sendApiError(res, "openai", reply);
    return { scenario, turn, reply: "error", status: reply.status };
  }
  const model = str(body.model) ?? "gpt-fake";
  const id = newId("chatcmpl");
  const created = Math.floor(Date.now() / 1000);
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  const toolCall =
    reply.kind === "tool"
      ? {
          id: newId("call"),
          type: "function",
          function: { name: reply.name, arguments: JSON.stringify(reply.args) },
        }
      : null;
  const finish = toolCall ? "tool_calls" : "stop";
  const info: Obj = {
    scenario,
    turn,
    reply: reply.kind,
    tool: reply.kind === "tool" ? reply.name : undefined,
    fallback: reply.kind === "text" ? reply.fallback : undefined,
    stream: Boolean(body.stream),
  };
  if (!body.stream) {
    const message: Obj = { role: "assistant", content: reply.text || (toolCall ? null : "") };
    if (toolCall) message.tool_calls = [toolCall];
    sendJson(res, 200, {
      id,
      object: "chat.completion",
      created,
      model,
      choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
      usage,
    });
    return info;
  }
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
  if (reply.text) for (const piece of chunks(reply.text)) chunk({ content: piece });
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
  chunk({}, finish);
  if (obj(body.stream_options).include_usage) {
    sse(res, null, { id, object: "chat.completion.chunk", created, model, choices: [], usage });
  }
  sse(res, null, "[DONE]");
  res.end();
  return info;
}
