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

const MODEL_ITEM_TYPES = ["function_call", "custom_tool_call", "local_shell_call", "reasoning"];

const USAGE = {
  input_tokens: 10,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 5,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 15,
};

/** OpenAI Responses (codex): POST …/responses, streaming unless `stream: false`. */
export async function openaiResponses(
  res: ServerResponse,
  body: Obj,
  raw: string,
  script: FakeLlmScript,
  defaultText: string,
  hold: (reply: Reply) => Promise<void>,
): Promise<Obj> {
  const { name: scenario, steps } = chooseSteps(script, raw, defaultText);
  const turn = assistantTurns(arr(body.input).map(obj));
  const offered = arr(body.tools).map(obj);
  const tools = offered
    .map((t) => str(t.name) ?? str(obj(t.function).name) ?? str(t.type))
    .filter((n): n is string => n !== undefined);
  const reply = pickReply(steps, turn, tools, defaultText);
  await hold(reply);
  if (reply.kind === "error") {
    sendApiError(res, "openai", reply);
    return { scenario, turn, reply: "error", status: reply.status };
  }
  const output = outputItems(reply, offered);
  const base = {
    id: newId("resp"),
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    model: str(body.model) ?? "gpt-fake",
    status: "in_progress",
    output: [],
  };
  const info: Obj = { ...servedReply(scenario, turn, reply), stream: body.stream !== false };
  if (body.stream === false) {
    sendJson(res, 200, { ...base, status: "completed", output, usage: USAGE });
    return info;
  }
  streamResponse(res, base, output);
  return info;
}

/**
 * One assistant turn per run of consecutive model-output items: a preamble and a tool call
 * from one response count once.
 */
function assistantTurns(input: Obj[]): number {
  let turn = 0;
  let previousWasModel = false;
  for (const item of input) {
    const isModel =
      MODEL_ITEM_TYPES.includes(String(item.type)) ||
      ((item.type === "message" || item.type === undefined) && item.role === "assistant");
    if (isModel && !previousWasModel) turn++;
    previousWasModel = isModel;
  }
  return turn;
}

/** The reply's output items: its text as a message, its tool call as the tool's kind wants. */
function outputItems(reply: Exclude<Reply, { kind: "error" }>, offered: Obj[]): Obj[] {
  const output: Obj[] = [];
  if (reply.text) {
    output.push({
      id: newId("msg"),
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: reply.text, annotations: [] }],
    });
  }
  if (reply.kind !== "tool") return output;
  const tool = offered.find((t) => (str(t.name) ?? str(obj(t.function).name)) === reply.name);
  if (tool?.type === "custom") {
    // A freeform tool (codex's apply_patch grammar tool) takes a raw string.
    const input =
      typeof reply.args === "string"
        ? reply.args
        : (str(obj(reply.args).input) ?? JSON.stringify(reply.args));
    output.push({
      id: newId("ctc"),
      type: "custom_tool_call",
      status: "completed",
      call_id: newId("call"),
      name: reply.name,
      input,
    });
  } else {
    output.push({
      id: newId("fc"),
      type: "function_call",
      status: "completed",
      call_id: newId("call"),
      name: reply.name,
      arguments: JSON.stringify(reply.args),
    });
  }
  return output;
}

/** The response as Responses events: created, each output item in pieces, completed. */
function streamResponse(res: ServerResponse, base: Obj, output: Obj[]): void {
  sseStart(res);
  let sequenceNumber = 0;
  const event = (type: string, data: Obj): void =>
    sse(res, type, { type, sequence_number: sequenceNumber++, ...data });
  event("response.created", { response: base });
  event("response.in_progress", { response: base });
  output.forEach((item, outputIndex) => {
    if (item.type === "message") {
      const part = obj(arr(item.content)[0]);
      const text = String(part.text);
      const where = { item_id: item.id, output_index: outputIndex, content_index: 0 };
      event("response.output_item.added", {
        output_index: outputIndex,
        item: { ...item, status: "in_progress", content: [] },
      });
      event("response.content_part.added", {
        ...where,
        part: { type: "output_text", text: "", annotations: [] },
      });
      for (const piece of chunks(text))
        event("response.output_text.delta", { ...where, delta: piece });
      event("response.output_text.done", { ...where, text });
      event("response.content_part.done", { ...where, part });
    } else if (item.type === "function_call") {
      event("response.output_item.added", {
        output_index: outputIndex,
        item: { ...item, status: "in_progress", arguments: "" },
      });
      event("response.function_call_arguments.delta", {
        item_id: item.id,
        output_index: outputIndex,
        delta: item.arguments,
      });
      event("response.function_call_arguments.done", {
        item_id: item.id,
        output_index: outputIndex,
        arguments: item.arguments,
      });
    } else {
      event("response.output_item.added", {
        output_index: outputIndex,
        item: { ...item, status: "in_progress", input: "" },
      });
    }
    event("response.output_item.done", { output_index: outputIndex, item });
  });
  event("response.completed", {
    response: { ...base, status: "completed", output, usage: USAGE },
  });
  res.end();
}
