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

/** Anthropic Messages: POST /v1/messages, streaming and not. */
export async function anthropicMessages(
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
    .map((t) => str(obj(t).name))
    .filter((n): n is string => n !== undefined);
  const reply = pickReply(steps, turn, tools, defaultText);
  await hold(reply);
  if (reply.kind === "error") {
    sendApiError(res, "anthropic", reply);
    return { scenario, turn, reply: "error", status: reply.status };
  }
  const content: Obj[] = [];
  if (reply.text) content.push({ type: "text", text: reply.text });
  if (reply.kind === "tool")
    content.push({ type: "tool_use", id: newId("toolu"), name: reply.name, input: reply.args });
  const message: Message = {
    id: newId("msg"),
    model: str(body.model) ?? "claude-fake",
    content,
    stopReason: reply.kind === "tool" ? "tool_use" : "end_turn",
  };
  const info: Obj = { ...servedReply(scenario, turn, reply), stream: Boolean(body.stream) };
  if (body.stream) {
    streamMessage(res, message);
    return info;
  }
  sendJson(res, 200, {
    id: message.id,
    type: "message",
    role: "assistant",
    model: message.model,
    content,
    stop_reason: message.stopReason,
    stop_sequence: null,
    usage: USAGE,
  });
  return info;
}

interface Message {
  id: string;
  model: string;
  content: Obj[];
  stopReason: string;
}

const USAGE = {
  input_tokens: 10,
  output_tokens: 5,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

/** The message as Anthropic streams it: a start, each content block in pieces, a stop. */
function streamMessage(res: ServerResponse, message: Message): void {
  sseStart(res);
  sse(res, "message_start", {
    type: "message_start",
    message: {
      id: message.id,
      type: "message",
      role: "assistant",
      model: message.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...USAGE, output_tokens: 1 },
    },
  });
  sse(res, "ping", { type: "ping" });
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      sse(res, "content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" },
      });
      for (const piece of chunks(String(block.text))) {
        sse(res, "content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "text_delta", text: piece },
        });
      }
    } else {
      sse(res, "content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      for (const piece of chunks(JSON.stringify(block.input), 2)) {
        sse(res, "content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: piece },
        });
      }
    }
    sse(res, "content_block_stop", { type: "content_block_stop", index });
  });
  sse(res, "message_delta", {
    type: "message_delta",
    delta: { stop_reason: message.stopReason, stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  sse(res, "message_stop", { type: "message_stop" });
  res.end();
}
