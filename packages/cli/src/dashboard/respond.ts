import type { IncomingMessage, ServerResponse } from "node:http";
import { errorMessage, isUwfError } from "@united-workforce/util";
import { MAX_ANSWER_BYTES } from "./answer.js";
import type { Html } from "./html.js";
import { errorPage } from "./pages/layout.js";

/** A request body past what an answer can be: 413. */
class TooLarge extends Error {}

/** A request's body as text, refused (TooLarge) past `limit` bytes (four longest answers). */
export function readBody(req: IncomingMessage, limit = MAX_ANSWER_BYTES * 4): Promise<string> {
  return new Promise((resolve, reject) => {
    // Said too long up front: refused before a byte is read.
    if (Number(req.headers["content-length"] ?? 0) > limit) {
      reject(new TooLarge(`the request's body is longer than ${limit} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new TooLarge(`the request's body is longer than ${limit} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      resolve(text);
    });
    req.on("error", reject);
  });
}

/**
 * An error as a response: a page, or `{ error }` under /api/ and /hooks/; its status from its code
 * (`fallback` for a UwfError that is not a missing thing), 500 for anything unexpected.
 */
export function failed(res: ServerResponse, url: URL, error: unknown, fallback = 500): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const code = isUwfError(error) ? error.code : "INTERNAL";
  const status =
    error instanceof TooLarge
      ? 413
      : /NOT_FOUND$/.test(code) || code === "NODE_INVALID"
        ? 404
        : isUwfError(error)
          ? fallback === 500
            ? 400
            : fallback
          : 500;
  // The rest of a body too long is never read: the connection cannot carry another request.
  if (error instanceof TooLarge) res.setHeader("connection", "close");
  const message = errorMessage(error);
  const hint = isUwfError(error) ? (error.hint ?? null) : null;
  if (/^\/(api|hooks)\//.test(url.pathname)) json(res, { error: { code, message, hint } }, status);
  else send(res, status, "text/html", errorPage(status, message, hint).text);
}

export function html(res: ServerResponse, page: Html): void {
  send(res, 200, "text/html", page.text);
}

export function json(res: ServerResponse, value: unknown, status = 200): void {
  send(res, status, "application/json", JSON.stringify(value));
}

export function plain(res: ServerResponse, status: number, text: string): void {
  send(res, status, "text/plain", `${text}\n`);
}

export function asset(res: ServerResponse, type: string, text: string): void {
  send(res, 200, type, text, "private, max-age=3600");
}

export function redirect(res: ServerResponse, location: string): void {
  res.writeHead(303, { location, "content-length": 0 });
  res.end();
}

/** When each request began, for its Server-Timing header (what the bench reads). */
export const STARTED = new WeakMap<ServerResponse, number>();

export function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  cache = "no-store",
): void {
  const bytes = Buffer.from(body, "utf8");
  const began = STARTED.get(res);
  if (began !== undefined)
    res.setHeader("server-timing", `app;dur=${(performance.now() - began).toFixed(2)}`);
  res.writeHead(status, {
    "content-type": `${type}; charset=utf-8`,
    "content-length": bytes.length,
    "cache-control": cache,
  });
  res.end(bytes);
}
