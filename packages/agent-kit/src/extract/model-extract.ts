import type { SchemaMap } from "@united-workforce/engine/adapter";
import { isPlainObject, type Usage } from "@united-workforce/protocol";
import { errorMessage } from "@united-workforce/util";
import { chatCompletion } from "../openai/chat-completion.js";
import type { RetryPolicy } from "../openai/retry.js";

export interface ModelEndpoint {
  baseUrl: string;
  apiKey: string | null;
  model: string;
}

export interface ModelExtraction {
  data: Record<string, unknown>;
  usage: Partial<Usage>;
  /** The model's reply text, kept in the detail. */
  reply: string;
}

export const DEFAULT_EXTRACT_TIMEOUT_MS = 60_000;

/** The extract model is the last resort after the agent's own attempts: one retry is enough. */
const EXTRACT_RETRY: RetryPolicy = { attempts: 2, baseDelayMs: 500, maxDelayMs: 10_000 };

/**
 * The last resort before failing: ask an OpenAI-compatible chat-completions model to turn the
 * agent's raw answer into JSON matching the schema. The caller validates the result like any
 * other candidate. Throws with a readable message on HTTP, network, timeout or JSON errors
 * (a `ModelRequestError` from the OpenAI-compatible client for the first three).
 */
export async function extractWithModel(options: {
  endpoint: ModelEndpoint;
  schema: SchemaMap;
  rawOutput: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  retry?: RetryPolicy;
}): Promise<ModelExtraction> {
  const { endpoint } = options;
  const system = [
    "You extract structured data. Read the agent output the user sends and answer with ONE JSON object that matches this JSON Schema.",
    "Use only information present in the output. Keep `$status` exactly as the output states it.",
    "Answer with the JSON object only: no prose, no code fence.",
    "",
    JSON.stringify(options.schema, null, 2),
  ].join("\n");
  const answer = await chatCompletion({
    baseUrl: endpoint.baseUrl,
    apiKey: endpoint.apiKey,
    model: endpoint.model,
    body: { temperature: 0, response_format: { type: "json_object" } },
    messages: [
      { role: "system", content: system },
      { role: "user", content: options.rawOutput },
    ],
    timeoutMs: options.timeoutMs ?? DEFAULT_EXTRACT_TIMEOUT_MS,
    retry: options.retry ?? EXTRACT_RETRY,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const reply = answer.message.content;
  if (typeof reply !== "string" || reply === "") throw new Error("extract model answered no text");
  return { data: parseJsonObject(reply), usage: answer.usage, reply };
}

/** Models sometimes fence JSON or add a sentence despite being asked not to. */
function parseJsonObject(reply: string): Record<string, unknown> {
  const from = reply.indexOf("{");
  const to = reply.lastIndexOf("}");
  if (from === -1 || to < from)
    throw new Error(`extract model reply holds no JSON object: ${reply.slice(0, 200)}`);
  let value: unknown;
  try {
    value = JSON.parse(reply.slice(from, to + 1));
  } catch (error) {
    throw new Error(`extract model reply is not valid JSON: ${errorMessage(error)}`);
  }
  if (!isPlainObject(value)) {
    throw new Error("extract model reply is not a JSON object");
  }
  return value as Record<string, unknown>;
}
