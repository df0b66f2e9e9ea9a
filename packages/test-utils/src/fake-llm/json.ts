import type { ServerResponse } from "node:http";
import { isPlainObject } from "@united-workforce/protocol";

export type Obj = Record<string, unknown>;

/** Request bodies are arbitrary JSON from several APIs: read them without trusting their shape. */
export function obj(value: unknown): Obj {
  return isPlainObject(value) ? value : {};
}

export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sseStart(res: ServerResponse): void {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
}

export function sse(res: ServerResponse, event: string | null, data: unknown): void {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  res.write(`${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`);
}

/** Split text into about n pieces so streaming clients see several deltas. */
export function chunks(text: string, n = 3): string[] {
  const out: string[] = [];
  const size = Math.max(1, Math.ceil(text.length / n));
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [""];
}

let sequence = 0;
export function newId(prefix: string): string {
  sequence++;
  return `${prefix}_${Date.now().toString(36)}${sequence.toString(36)}`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

type Api = "anthropic" | "openai" | "gemini";

/** A scripted HTTP error in each API's own error shape. */
export function sendApiError(
  res: ServerResponse,
  api: Api,
  reply: { status: number; message: string; headers: Record<string, string> },
): void {
  const { status, message, headers } = reply;
  if (api === "anthropic") {
    const type =
      status === 429
        ? "rate_limit_error"
        : status === 401
          ? "authentication_error"
          : status === 400
            ? "invalid_request_error"
            : status === 529
              ? "overloaded_error"
              : "api_error";
    sendJson(res, status, { type: "error", error: { type, message } }, headers);
    return;
  }
  if (api === "gemini") {
    const code =
      status === 429
        ? "RESOURCE_EXHAUSTED"
        : status === 400
          ? "INVALID_ARGUMENT"
          : status === 401 || status === 403
            ? "PERMISSION_DENIED"
            : "INTERNAL";
    sendJson(res, status, { error: { code: status, message, status: code } }, headers);
    return;
  }
  const type =
    status === 429
      ? "rate_limit_exceeded"
      : status >= 500
        ? "server_error"
        : "invalid_request_error";
  sendJson(res, status, { error: { message, type, code: null, param: null } }, headers);
}
