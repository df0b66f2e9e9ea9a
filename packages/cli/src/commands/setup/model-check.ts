import type { CheckResult, ProviderApi } from "@united-workforce/protocol";
import { maskOccurrences, sanitizeTerminalText } from "@united-workforce/util";
import { failed, passed, unreachable, withTimeout } from "./checks.js";

// The model check of `uwf setup`: one token asked in the provider's own protocol (OpenAI chat
// or responses, Anthropic, Gemini), its answer worded without ever holding the key.

export interface ModelTarget {
  provider: string;
  api: ProviderApi;
  baseUrl: string;
  apiKey: string | null;
  model: string;
  /** The variable the key should come from, named in the hint when the key is refused. */
  apiKeyEnv?: string | undefined;
}

interface HttpAnswer {
  status: number;
  message: string;
}

/**
 * Ask the model for one token in its provider's own protocol. Any 2xx is a pass; a request
 * that OpenAI-style reasoning models refuse because one token is too few also proves that the
 * endpoint, key and model are right, so it passes too.
 */
export async function checkModel(
  target: ModelTarget,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<CheckResult> {
  const name = `model ${target.model} at ${target.provider}`;
  const send = (body: Record<string, unknown>) =>
    post(modelUrl(target), headersFor(target), body, target.apiKey, options);
  try {
    let answer = await send(modelBody(target));
    if (
      target.api === "openai-chat" &&
      answer.status === 400 &&
      answer.message.includes("max_completion_tokens")
    ) {
      answer = await send({
        ...chatBody(target.model),
        max_tokens: undefined,
        max_completion_tokens: 1,
      });
    }
    if (answer.status >= 200 && answer.status < 300) {
      return passed(name, `answered (HTTP ${answer.status}, ${target.api})`);
    }
    if (
      answer.status === 400 &&
      /max_(completion_|output_)?tokens|output limit/i.test(answer.message)
    ) {
      return passed(
        name,
        `answered: it refused a 1-token reply (HTTP 400), so endpoint, key and model work`,
      );
    }
    return failed(
      name,
      `HTTP ${answer.status}: ${answer.message}`,
      modelHint(target, answer.status),
    );
  } catch (error) {
    return failed(
      name,
      unreachable(modelUrl(target), error, options.timeoutMs),
      `Check the base URL (uwf config set providers.${target.provider}.baseUrl <url>) and your network.`,
    );
  }
}

function modelHint(target: ModelTarget, status: number): string {
  if (status === 401 || status === 403) {
    const where = target.apiKeyEnv
      ? `$${target.apiKeyEnv}${target.apiKey === null ? " is not set" : ""}`
      : `providers.${target.provider}.apiKey`;
    return `The key was refused: check ${where} (uwf config set providers.${target.provider}.apiKey <key>, or --api-key-env <VAR>).`;
  }
  if (status === 404) {
    return `Check the model name (uwf config set models.<alias>.name <name>) and the base URL; the provider's model list names what it serves.`;
  }
  return "The provider refused the request: see its message above.";
}

function modelUrl(target: ModelTarget): string {
  const base = target.baseUrl.replace(/\/+$/, "");
  switch (target.api) {
    case "anthropic":
      return /\/v1$/.test(base) ? `${base}/messages` : `${base}/v1/messages`;
    case "gemini": {
      const root = /\/v1(beta)?$/.test(base) ? base : `${base}/v1beta`;
      const model = encodeURIComponent(target.model.replace(/^models\//, ""));
      return `${root}/models/${model}:generateContent`;
    }
    case "openai-responses":
      return `${base}/responses`;
    default:
      return `${base}/chat/completions`;
  }
}

const PING = "Reply with OK.";

function chatBody(model: string): Record<string, unknown> {
  return { model, messages: [{ role: "user", content: PING }], max_tokens: 1 };
}

function modelBody(target: ModelTarget): Record<string, unknown> {
  switch (target.api) {
    case "anthropic":
      return {
        model: target.model,
        max_tokens: 1,
        messages: [{ role: "user", content: PING }],
      };
    case "gemini":
      return {
        contents: [{ role: "user", parts: [{ text: PING }] }],
        generationConfig: { maxOutputTokens: 1 },
      };
    // The Responses API refuses a limit below 16.
    case "openai-responses":
      return { model: target.model, input: PING, max_output_tokens: 16 };
    default:
      return chatBody(target.model);
  }
}

function headersFor(target: ModelTarget): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (target.apiKey === null) {
    if (target.api === "anthropic") headers["anthropic-version"] = "2023-06-01";
    return headers;
  }
  switch (target.api) {
    case "anthropic":
      headers["x-api-key"] = target.apiKey;
      headers["anthropic-version"] = "2023-06-01";
      break;
    case "gemini":
      headers["x-goog-api-key"] = target.apiKey;
      break;
    default:
      headers.authorization = `Bearer ${target.apiKey}`;
  }
  return headers;
}

async function post(
  url: string,
  headers: Record<string, string>,
  body: Record<string, unknown>,
  apiKey: string | null,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<HttpAnswer> {
  return withTimeout(options, async (signal) => {
    const response = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal,
      redirect: "error",
    });
    const text = await response.text();
    return { status: response.status, message: errorText(text, apiKey) };
  });
}

/** The provider's own error message, short, terminal-safe, and never holding the key. */
function errorText(body: string, apiKey: string | null): string {
  let message = body;
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const error = parsed.error;
    const inner =
      typeof error === "string"
        ? error
        : typeof (error as { message?: unknown } | undefined)?.message === "string"
          ? (error as { message: string }).message
          : typeof parsed.message === "string"
            ? parsed.message
            : null;
    if (inner !== null) message = inner;
  } catch {
    // Not JSON: the text itself.
  }
  message = maskOccurrences(message, apiKey);
  message = sanitizeTerminalText(message.replace(/\s+/g, " ").trim());
  return message.length > 300 ? `${message.slice(0, 300)}…` : message || "(no message)";
}
