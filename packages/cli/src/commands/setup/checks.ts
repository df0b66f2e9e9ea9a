import { execFile } from "node:child_process";
import type { CheckResult, ProviderApi } from "@united-workforce/protocol";
import { errorMessage, maskOccurrences, sanitizeTerminalText } from "@united-workforce/util";

/**
 * The checks `uwf setup` and `uwf doctor` share. Each returns one line's worth: what was
 * checked, whether it passed, a short detail, and what to do when it failed. None prints, and
 * none ever puts an API key in its result.
 */

export function passed(name: string, detail: string): CheckResult {
  return { name, ok: true, detail, hint: null };
}

export function failed(name: string, detail: string, hint: string | null): CheckResult {
  return { name, ok: false, detail, hint };
}

/** Passed, but with something to look at: shown as `!`, and it does not fail the run. */
export function warned(name: string, detail: string, hint: string): CheckResult {
  return { name, ok: true, warning: true, detail, hint };
}

/**
 * A provider whose key is read from a variable: is it set, in the environment or the home's
 * `.env` (both already in `env`)? An unset one sends requests without a key, which a local
 * server may accept, so it is a warning, not a failure.
 */
export function checkApiKeyEnv(
  provider: string,
  variable: string,
  env: Record<string, string | undefined>,
  dotenvFile: string,
): CheckResult {
  const name = `provider ${provider}: key`;
  // An empty variable counts as unset, as it does where the key is read (resolveModel).
  if (env[variable]) return passed(name, `$${variable} is set`);
  return warned(
    name,
    `$${variable} is not set, nor in ${dotenvFile}: requests go out without a key`,
    `Set it (export ${variable}=…, or a line ${variable}=… in ${dotenvFile}), or store the key: uwf config set providers.${provider}.apiKey <key>.`,
  );
}

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

/**
 * Is the provider's base URL answering at all? A GET without credentials: any HTTP status (a
 * 404 or 401 included) proves the host is up and speaks HTTP.
 */
export async function checkReachable(
  name: string,
  baseUrl: string,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<CheckResult> {
  try {
    const status = await withTimeout(options, async (signal) => {
      const response = await fetch(baseUrl, { method: "GET", signal, redirect: "manual" });
      await response.body?.cancel();
      return response.status;
    });
    return passed(name, `${baseUrl} reachable (HTTP ${status})`);
  } catch (error) {
    return failed(
      name,
      unreachable(baseUrl, error, options.timeoutMs),
      `Check the URL (uwf config set ${name.replace(/^provider /, "providers.")}.baseUrl <url>), your network and any proxy.`,
    );
  }
}

async function withTimeout<T>(
  options: { timeoutMs: number; signal?: AbortSignal },
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new TimeoutError()), options.timeoutMs);
  const onAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    return await work(controller.signal);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

class TimeoutError extends Error {}

function unreachable(url: string, error: unknown, timeoutMs: number): string {
  if (
    error instanceof TimeoutError ||
    (error as { cause?: unknown })?.cause instanceof TimeoutError
  )
    return `no answer from ${url} within ${duration(timeoutMs)}`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const why = cause?.code ?? cause?.message ?? errorMessage(error);
  return `cannot reach ${url}: ${sanitizeTerminalText(String(why))}`;
}

/**
 * The first line `<path> --version` prints, run without a shell and with only PATH and HOME,
 * or null (with the reason) when it does not answer. Never throws.
 */
export function commandVersion(
  path: string,
  env: Record<string, string | undefined>,
  timeoutMs: number,
): Promise<{ version: string | null; problem: string | null }> {
  const minimal: Record<string, string> = {};
  for (const name of ["PATH", "HOME"]) if (env[name] !== undefined) minimal[name] = env[name]!;
  return new Promise((resolve) => {
    execFile(
      path,
      ["--version"],
      { shell: false, env: minimal, timeout: timeoutMs, maxBuffer: 64 * 1024, windowsHide: true },
      (error, stdout, stderr) => {
        const line = firstLine(`${stdout}`) ?? firstLine(`${stderr}`);
        if (error) {
          const code = (error as { code?: unknown }).code;
          const why = (error as { killed?: boolean }).killed
            ? `no answer within ${duration(timeoutMs)}`
            : typeof code === "number"
              ? `exit ${code}`
              : String(code ?? error.message);
          resolve({ version: null, problem: `--version failed (${why})` });
        } else {
          resolve({ version: line ?? "", problem: null });
        }
      },
    );
  });
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

function firstLine(text: string): string | null {
  const line = text.split(/\r?\n/).find((l) => l.trim() !== "");
  if (line === undefined) return null;
  const clean = sanitizeTerminalText(line.trim());
  return clean.length > 120 ? `${clean.slice(0, 120)}…` : clean;
}
