import type { SchemaMap } from "@united-workforce/engine";
import type { Usage } from "@united-workforce/protocol";

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

/**
 * The last resort before failing: ask an OpenAI-compatible chat-completions model to turn the
 * agent's raw answer into JSON matching the schema. The caller validates the result like any
 * other candidate. Throws with a readable message on HTTP, network, timeout or JSON errors.
 */
export async function extractWithModel(options: {
  endpoint: ModelEndpoint;
  schema: SchemaMap;
  rawOutput: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}): Promise<ModelExtraction> {
  const { endpoint } = options;
  const url = `${endpoint.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const system = [
    "You extract structured data. Read the agent output the user sends and answer with ONE JSON object that matches this JSON Schema.",
    "Use only information present in the output. Keep `$status` exactly as the output states it.",
    "Answer with the JSON object only: no prose, no code fence.",
    "",
    JSON.stringify(options.schema, null, 2),
  ].join("\n");
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_EXTRACT_TIMEOUT_MS;
  const { signal, dispose } = timeoutSignal(timeoutMs, options.signal);
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: "POST",
      headers,
      signal,
      body: JSON.stringify({
        model: endpoint.model,
        temperature: 0,
        response_format: { type: "json_object" },
        messages: [
          { role: "system", content: system },
          { role: "user", content: options.rawOutput },
        ],
      }),
    });
    text = await response.text();
  } catch (error) {
    if (signal.aborted && !options.signal?.aborted) {
      throw new Error(
        `extract model ${endpoint.model} at ${url} did not answer within ${timeoutMs} ms`,
      );
    }
    throw new Error(`extract model request to ${url} failed: ${describe(error)}`);
  } finally {
    dispose();
  }
  if (!response.ok) {
    throw new Error(
      `extract model ${endpoint.model} answered HTTP ${response.status}: ${text.slice(0, 300)}`,
    );
  }
  const reply = replyText(text);
  return { data: parseJsonObject(reply), usage: usageOf(text), reply };
}

function replyText(body: string): string {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new Error(`extract model answered something that is not JSON: ${body.slice(0, 200)}`);
  }
  const content = (json as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]
    ?.message?.content;
  if (typeof content !== "string")
    throw new Error("extract model answer has no choices[0].message.content");
  return content;
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
    throw new Error(`extract model reply is not valid JSON: ${describe(error)}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error("extract model reply is not a JSON object");
  }
  return value as Record<string, unknown>;
}

function usageOf(body: string): Partial<Usage> {
  const usage = (JSON.parse(body) as { usage?: Record<string, unknown> }).usage;
  if (!usage) return {};
  const out: Partial<Usage> = {};
  if (typeof usage.prompt_tokens === "number") out.inputTokens = usage.prompt_tokens;
  if (typeof usage.completion_tokens === "number") out.outputTokens = usage.completion_tokens;
  return out;
}

/** A timeout that also follows the caller's signal (AbortSignal.any needs Node 20.3). */
function timeoutSignal(
  ms: number,
  outer?: AbortSignal,
): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error("timeout")), ms);
  const onAbort = (): void => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  outer?.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onAbort);
    },
  };
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
    return `${error.message}${cause}`;
  }
  return String(error);
}
