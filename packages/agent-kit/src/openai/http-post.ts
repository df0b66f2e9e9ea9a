import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { nodeHttp, nodeZlib } from "@united-workforce/util";

/** An HTTP answer, read whole. */
export interface HttpAnswer {
  status: number;
  ok: boolean;
  headers: { get(name: string): string | null };
  text: string;
}

export interface HttpPost {
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
}

/** Redirects that keep the method and body (RFC 9110): followed, this many at most. */
const REDIRECTS = new Set([307, 308]);
const MAX_REDIRECTS = 5;

/**
 * POST `body` to `url` and read the whole answer, with `node:http`/`node:https`. Not `fetch`:
 * Node 20's first `fetch` loads undici (≈ 1 MB of JavaScript, HTTP/2 included), ≈ 20 ms of
 * every model-calling process's start, for one JSON request. Like `fetch`, it follows 307 and
 * 308 redirects and reads gzip, deflate and brotli answers; a network failure rejects with the
 * system error as `cause`.
 */
export async function httpPost(url: string, post: HttpPost): Promise<HttpAnswer> {
  let target = new URL(url);
  for (let redirects = 0; ; redirects++) {
    const response = await send(target, post);
    const location = response.headers.location;
    if (!REDIRECTS.has(response.statusCode ?? 0) || location === undefined) {
      return await readAnswer(response);
    }
    response.resume();
    if (redirects >= MAX_REDIRECTS) {
      throw new Error(`more than ${MAX_REDIRECTS} redirects (the last to ${location})`);
    }
    target = new URL(location, target);
  }
}

function send(target: URL, post: HttpPost): Promise<IncomingMessage> {
  if (target.protocol !== "http:" && target.protocol !== "https:") {
    return Promise.reject(new Error(`${target.href}: ${target.protocol} is not http: or https:`));
  }
  return new Promise((resolve, reject) => {
    const request = nodeHttp(target.protocol === "https:").request(target, {
      method: "POST",
      headers: {
        ...post.headers,
        "accept-encoding": "gzip, deflate, br",
        "content-length": String(Buffer.byteLength(post.body)),
      },
      signal: post.signal,
    });
    request.once("response", resolve);
    // `on`, not `once`: a socket can fail again after the answer began (the body's reader then
    // sees the failure); a second error event with no listener would end the process.
    request.on("error", (error) =>
      // The caller names the URL; the system error (ECONNREFUSED, a TLS problem) is the cause.
      reject(new Error("request failed", { cause: error })),
    );
    request.end(post.body);
  });
}

async function readAnswer(response: IncomingMessage): Promise<HttpAnswer> {
  const chunks: Buffer[] = [];
  for await (const chunk of decoded(response)) chunks.push(chunk as Buffer);
  const status = response.statusCode ?? 0;
  return {
    status,
    ok: status >= 200 && status < 300,
    headers: { get: (name) => headerValue(response.headers, name) },
    text: Buffer.concat(chunks).toString("utf8"),
  };
}

function decoded(response: IncomingMessage): AsyncIterable<unknown> {
  const encoding = response.headers["content-encoding"]?.trim().toLowerCase();
  if (encoding === "gzip" || encoding === "x-gzip") return response.pipe(nodeZlib().createGunzip());
  if (encoding === "deflate") return response.pipe(nodeZlib().createInflate());
  if (encoding === "br") return response.pipe(nodeZlib().createBrotliDecompress());
  return response;
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name.toLowerCase()];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(", ") : value;
}
