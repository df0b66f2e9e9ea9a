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
} from "./json.js";
import { chooseSteps, type FakeLlmScript, pickReply, type Reply, servedReply } from "./script.js";

/** Gemini: POST …/models/M:generateContent | :streamGenerateContent | :countTokens. */
export async function gemini(
  res: ServerResponse,
  request: GeminiRequest,
  script: FakeLlmScript,
  defaultText: string,
  hold: (reply: Reply) => Promise<void>,
): Promise<Obj> {
  const { body, raw, method } = request;
  if (method === "countTokens") {
    sendJson(res, 200, { totalTokens: 10 });
    return { reply: "countTokens" };
  }
  const { name: scenario, steps } = chooseSteps(script, raw, defaultText);
  const turn = arr(body.contents).filter((c) => obj(c).role === "model").length;
  const config = obj(body.generationConfig ?? body.config);
  let parts: Obj[];
  let info: Obj;
  if (
    config.responseMimeType === "application/json" ||
    config.responseJsonSchema ||
    config.responseSchema
  ) {
    // gemini-cli's side requests (next speaker, routing, loop checks) want JSON built from a schema.
    const sample = obj(sampleFromSchema(config.responseJsonSchema ?? config.responseSchema));
    if ("next_speaker" in sample) sample.next_speaker = "user";
    parts = [{ text: JSON.stringify(sample) }];
    info = { scenario, turn, reply: "json", json: sample };
  } else {
    const reply = pickReply(steps, turn, declaredFunctions(body), defaultText);
    await hold(reply);
    if (reply.kind === "error") {
      sendApiError(res, "gemini", reply);
      return { scenario, turn, reply: "error", status: reply.status };
    }
    parts = [];
    if (reply.text) parts.push({ text: reply.text });
    if (reply.kind === "tool") parts.push({ functionCall: { name: reply.name, args: reply.args } });
    info = servedReply(scenario, turn, reply);
  }
  info.stream = method === "streamGenerateContent";
  sendGenerated(res, request, parts);
  return info;
}

interface GeminiRequest {
  body: Obj;
  raw: string;
  model: string;
  method: string;
  /** `?alt=sse`: stream as server-sent events rather than one JSON array. */
  sse: boolean;
}

/** The function names the request's tools declare. */
function declaredFunctions(body: Obj): string[] {
  const declared: string[] = [];
  for (const tool of arr(body.tools)) {
    for (const fn of arr(obj(tool).functionDeclarations)) {
      const name = obj(fn).name;
      if (typeof name === "string") declared.push(name);
    }
  }
  return declared;
}

/** The parts as one response, or streamed: the text in pieces, then the other parts. */
function sendGenerated(res: ServerResponse, request: GeminiRequest, parts: Obj[]): void {
  const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };
  const response = (content: Obj[], finished: boolean): Obj => ({
    candidates: [
      {
        content: { role: "model", parts: content },
        ...(finished ? { finishReason: "STOP" } : {}),
        index: 0,
      },
    ],
    usageMetadata,
    modelVersion: request.model,
    responseId: newId("gresp"),
  });
  if (request.method !== "streamGenerateContent") {
    sendJson(res, 200, response(parts, true));
    return;
  }
  const frames: Obj[][] = [];
  for (const part of parts.filter((p) => p.text !== undefined)) {
    for (const piece of chunks(String(part.text))) frames.push([{ text: piece }]);
  }
  const others = parts.filter((p) => p.text === undefined);
  if (others.length > 0) frames.push(others);
  if (frames.length === 0) frames.push([{ text: "" }]);
  if (request.sse) {
    sseStart(res);
    frames.forEach((frame, i) => {
      sse(res, null, response(frame, i === frames.length - 1));
    });
    res.end();
  } else {
    sendJson(
      res,
      200,
      frames.map((frame, i) => response(frame, i === frames.length - 1)),
    );
  }
}

function sampleFromSchema(schema: unknown, depth = 0): unknown {
  const s = obj(schema);
  if (depth > 6 || Object.keys(s).length === 0) return null;
  const type = String(s.type ?? "").toLowerCase();
  const choices = arr(s.enum);
  if (choices.length > 0) {
    // Prefer values that end a turn or keep defaults.
    for (const preferred of ["user", "false", "flash", "simple"])
      if (choices.includes(preferred)) return preferred;
    return choices[0];
  }
  if (type === "object" || s.properties) {
    const out: Obj = {};
    for (const [key, value] of Object.entries(obj(s.properties)))
      out[key] = sampleFromSchema(value, depth + 1);
    return out;
  }
  if (type === "array") return [];
  if (type === "boolean") return false;
  // e.g. the router's complexity_score must be >= 1
  if (type === "number" || type === "integer") return s.minimum ?? 1;
  return "fake";
}
