import { isPlainObject, type Usage } from "@united-workforce/protocol";
import { errorMessage, maskOccurrences, UwfError } from "@united-workforce/util";
import { openaiUsage } from "../cli/usage.js";
import { hintForStatus, ModelRequestError } from "./errors.js";
import { type HttpAnswer, httpPost } from "./http-post.js";
import {
  abortableSleep,
  backoffDelay,
  DEFAULT_RETRY,
  type RetryPolicy,
  requestedDelay,
  type Sleep,
} from "./retry.js";

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface AssistantMessage {
  role: "assistant";
  content: string | null;
  tool_calls?: ToolCall[];
}

export type ChatMessage =
  | { role: "system" | "user"; content: string }
  | AssistantMessage
  | { role: "tool"; tool_call_id: string; content: string };

export interface ToolDefinition {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ChatCompletionRequest {
  /** The OpenAI-compatible base URL, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey: string | null;
  model: string;
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  /** More body fields, e.g. `temperature` or `response_format`. */
  body?: Record<string, unknown>;
  /** Per try: a try that takes longer fails (and is not retried). */
  timeoutMs: number;
  signal?: AbortSignal;
  retry?: RetryPolicy;
  /** Told before each wait, e.g. for a progress line. */
  onRetry?: (notice: RetryNotice) => void;
  /** Injected by tests, which assert the delays chosen instead of waiting. */
  sleep?: Sleep;
  random?: () => number;
  now?: () => number;
}

export interface RetryNotice {
  /** The try about to be made (2 for the first retry). */
  attempt: number;
  attempts: number;
  delayMs: number;
  /** What went wrong, e.g. `HTTP 503: overloaded`. */
  reason: string;
}

export interface ChatCompletion {
  message: AssistantMessage;
  finishReason: string | null;
  /** The toolkit's convention (`openaiUsage`): cached tokens are taken out of inputTokens. */
  usage: Partial<Usage>;
  /** The model that answered, as the provider names it. */
  model: string | null;
  /** Tries it took, the first included. */
  attempts: number;
}

interface Failure {
  kind: "http" | "network" | "timeout" | "response";
  status: number | null;
  /** The provider's message, or the network error. */
  detail: string;
  retryable: boolean;
  /** The wait the provider asked for, in ms. */
  requestedMs: number | null;
  cause?: unknown;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

type TryOutcome =
  | { ok: true; completion: Omit<ChatCompletion, "attempts"> }
  | { ok: false; failure: Failure };

/**
 * One non-streaming chat completion over `fetch`. 429s, 5xx answers and network errors are
 * retried with exponential backoff and jitter, honouring `retry-after-ms` and `Retry-After`;
 * other 4xx answers, timeouts and malformed answers are not. Fails with a `ModelRequestError`
 * that names the status, the provider's message and what to do; an abort of `signal` fails
 * with an INTERRUPTED error at once, also during a wait.
 */
export async function chatCompletion(request: ChatCompletionRequest): Promise<ChatCompletion> {
  const url = `${request.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const policy = request.retry ?? DEFAULT_RETRY;
  const attempts = Math.max(1, Math.floor(policy.attempts));
  const sleep = request.sleep ?? abortableSleep;
  const random = request.random ?? Math.random;
  const now = request.now ?? Date.now;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json",
  };
  if (request.apiKey) headers.authorization = `Bearer ${request.apiKey}`;
  const body = JSON.stringify({
    ...request.body,
    model: request.model,
    messages: request.messages,
    ...(request.tools && request.tools.length > 0 ? { tools: request.tools } : {}),
  });
  const where = `model "${request.model}" at ${url}`;

  for (let attempt = 1; ; attempt++) {
    const outcome = await tryOnce(url, { headers, body, request, now });
    if (outcome.ok) return { ...outcome.completion, attempts: attempt };
    const { failure } = outcome;
    if (!failure.retryable || attempt >= attempts) throw toError(where, failure, attempt, request);
    let wait = backoffDelay(attempt, policy, random);
    if (failure.requestedMs !== null) {
      if (failure.requestedMs > policy.maxDelayMs) {
        throw toError(where, failure, attempt, request, {
          note: `the provider asks to wait ${seconds(failure.requestedMs)} before retrying, longer than the ${seconds(policy.maxDelayMs)} this client waits at most`,
        });
      }
      wait = failure.requestedMs;
    }
    request.onRetry?.({ attempt: attempt + 1, attempts, delayMs: wait, reason: summary(failure) });
    try {
      await sleep(wait, request.signal);
    } catch (error) {
      if (request.signal?.aborted) throw interrupted(where);
      throw error;
    }
  }
}

async function tryOnce(
  url: string,
  options: {
    headers: Record<string, string>;
    body: string;
    request: ChatCompletionRequest;
    now: () => number;
  },
): Promise<TryOutcome> {
  const { request } = options;
  const outer = request.signal;
  if (outer?.aborted) throw interrupted(`model "${request.model}" at ${url}`);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(
    () => {
      timedOut = true;
      controller.abort();
    },
    // setTimeout fires at once for a longer delay.
    Math.min(request.timeoutMs, MAX_TIMER_MS),
  );
  const onAbort = (): void => controller.abort();
  outer?.addEventListener("abort", onAbort, { once: true });
  try {
    let response: HttpAnswer;
    try {
      response = await httpPost(url, {
        headers: options.headers,
        body: options.body,
        signal: controller.signal,
      });
    } catch (error) {
      if (outer?.aborted) throw interrupted(`model "${request.model}" at ${url}`);
      if (timedOut) {
        return fail({
          kind: "timeout",
          detail: `no answer within ${request.timeoutMs} ms`,
          retryable: false,
        });
      }
      const detail = maskOccurrences(describe(error), request.apiKey);
      return fail({ kind: "network", detail, retryable: true, cause: error });
    }
    const { text } = response;
    if (!response.ok) {
      return fail({
        kind: "http",
        status: response.status,
        detail: providerMessage(text, request.apiKey),
        retryable: response.status === 429 || response.status >= 500,
        requestedMs: requestedDelay(response.headers, options.now()),
      });
    }
    return parseCompletion(text, request.apiKey);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onAbort);
  }
}

function parseCompletion(text: string, apiKey: string | null): TryOutcome {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const detail = `not JSON: ${clip(maskOccurrences(text, apiKey))}`;
    return fail({ kind: "response", detail, retryable: false });
  }
  const root = asObject(json);
  const choice = Array.isArray(root.choices) ? asObject(root.choices[0]) : null;
  if (!choice) {
    // Some gateways answer 200 with an error object instead of choices.
    const error = root.error === undefined ? "" : `: ${providerMessage(text, apiKey)}`;
    return fail({ kind: "response", detail: `no choices${error}`, retryable: false });
  }
  const raw = asObject(choice.message);
  const message: AssistantMessage = { role: "assistant", content: contentText(raw.content) };
  const calls = toolCallsOf(raw.tool_calls);
  if (calls.length > 0) message.tool_calls = calls;
  return {
    ok: true,
    completion: {
      message,
      finishReason: typeof choice.finish_reason === "string" ? choice.finish_reason : null,
      usage: openaiUsage(root.usage),
      model: typeof root.model === "string" ? root.model : null,
    },
  };
}

/** Content is a string, null, or (some providers) a list of text parts. */
function contentText(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => asObject(part).text)
      .filter((part): part is string => typeof part === "string")
      .join("");
  }
  return null;
}

function toolCallsOf(value: unknown): ToolCall[] {
  if (!Array.isArray(value)) return [];
  const calls: ToolCall[] = [];
  value.forEach((item, index) => {
    const call = asObject(item);
    const fn = asObject(call.function);
    if (typeof fn.name !== "string") return;
    // Some providers send the arguments as an object rather than a JSON string.
    const args =
      typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments ?? {});
    const id = typeof call.id === "string" && call.id !== "" ? call.id : `call_${index}`;
    calls.push({ id, type: "function", function: { name: fn.name, arguments: args } });
  });
  return calls;
}

function toError(
  where: string,
  failure: Failure,
  attempts: number,
  request: ChatCompletionRequest,
  extra: { note?: string } = {},
): ModelRequestError {
  const tries = attempts > 1 ? ` (after ${attempts} tries)` : "";
  const note = extra.note ? `; ${extra.note}` : "";
  let message: string;
  let hint: string;
  switch (failure.kind) {
    case "http":
      message = `${where} answered HTTP ${failure.status}: ${failure.detail}${tries}${note}`;
      hint = hintForStatus(failure.status ?? 0);
      break;
    case "network":
      message = `cannot reach ${where}: ${failure.detail}${tries}`;
      hint = "Check the provider's baseUrl in $UWF_HOME/config.yaml and that the server is up.";
      break;
    case "timeout":
      message = `${where} did not answer within ${request.timeoutMs} ms`;
      hint =
        "The model may be hung or overloaded: try again later, or allow a longer request timeout.";
      break;
    default:
      message = `${where} answered something that is not a chat completion: ${failure.detail}`;
      hint = "Check that the provider's baseUrl points at an OpenAI-compatible API (…/v1).";
  }
  return new ModelRequestError(failure.kind, message, {
    status: failure.status,
    attempts,
    hint,
    retryAfterMs: failure.requestedMs,
    cause: failure.cause,
  });
}

function fail(
  failure: Partial<Failure> & Pick<Failure, "kind" | "detail" | "retryable">,
): TryOutcome {
  return { ok: false, failure: { status: null, requestedMs: null, ...failure } };
}

function interrupted(where: string): UwfError {
  return new UwfError("INTERRUPTED", `the request to ${where} was interrupted`);
}

function summary(failure: Failure): string {
  if (failure.kind === "http") return `HTTP ${failure.status}: ${clip(failure.detail, 120)}`;
  return clip(failure.detail, 120);
}

/** The provider's own message: `error.message` in OpenAI's shape, else the body's start. */
function providerMessage(text: string, apiKey: string | null): string {
  try {
    const json = asObject(JSON.parse(text));
    const error = json.error;
    if (typeof error === "string") return maskOccurrences(error, apiKey);
    const message = asObject(error).message ?? json.message;
    if (typeof message === "string" && message !== "")
      return clip(maskOccurrences(message, apiKey));
  } catch {
    // Not JSON: an HTML error page or plain text.
  }
  return text.trim() === "" ? "(empty body)" : clip(maskOccurrences(text, apiKey));
}

function describe(error: unknown): string {
  const cause =
    error instanceof Error && error.cause !== undefined ? ` (${errorMessage(error.cause)})` : "";
  return `${errorMessage(error)}${cause}`;
}

function asObject(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function clip(text: string, max = 300): string {
  const flat = text.trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
