import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { httpPost } from "./http-post.js";

let server: Server | null = null;
afterEach(async () => {
  const open = server;
  server = null;
  if (open === null) return;
  open.closeAllConnections();
  await new Promise((resolve) => open.close(resolve));
});

/** A real HTTP server on 127.0.0.1 that answers with `handle`; returns its URL. */
async function serve(
  handle: (request: IncomingMessage, body: string, response: ServerResponse) => void,
): Promise<string> {
  server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => handle(request, body, response));
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const post = (body = "{}") => ({
  headers: { "content-type": "application/json", authorization: "Bearer k" },
  body,
  signal: new AbortController().signal,
});

describe("httpPost", () => {
  it("posts the body with its headers and reads status, headers and text", async () => {
    const url = await serve((request, body, response) => {
      response.writeHead(201, { "retry-after": "3", "x-seen": request.headers.authorization });
      response.end(`${request.method} ${request.url} ${body} ß`);
    });
    const answer = await httpPost(`${url}/v1/chat`, post('{"a":1}'));
    expect(answer).toMatchObject({ status: 201, ok: true, text: 'POST /v1/chat {"a":1} ß' });
    expect(answer.headers.get("Retry-After")).toBe("3");
    expect(answer.headers.get("x-seen")).toBe("Bearer k");
    expect(answer.headers.get("x-missing")).toBeNull();
  });

  it("reads gzip and brotli answers", async () => {
    const url = await serve((request, _body, response) => {
      const br = request.url === "/br";
      response.writeHead(200, { "content-encoding": br ? "br" : "gzip" });
      response.end(br ? brotliCompressSync("from brotli") : gzipSync("from gzip"));
    });
    expect((await httpPost(`${url}/gz`, post())).text).toBe("from gzip");
    expect((await httpPost(`${url}/br`, post())).text).toBe("from brotli");
  });

  it("follows a 307 with the same body, and reports a 302 as it is", async () => {
    const url = await serve((request, body, response) => {
      if (request.url === "/old") response.writeHead(307, { location: "/new" }).end();
      else if (request.url === "/moved") response.writeHead(302, { location: "/new" }).end();
      else response.end(`${request.url} ${body}`);
    });
    expect((await httpPost(`${url}/old`, post("kept"))).text).toBe("/new kept");
    expect(await httpPost(`${url}/moved`, post())).toMatchObject({ status: 302, ok: false });
  });

  it("rejects with the system error as cause when nothing listens", async () => {
    const url = await serve((_request, _body, response) => response.end());
    server!.close();
    server = null;
    const failure = httpPost(`${url}/`, post());
    await expect(failure).rejects.toThrow(/^request failed$/);
    await expect(failure).rejects.toHaveProperty("cause.code", "ECONNREFUSED");
  });

  it("stops when its signal aborts", async () => {
    const controller = new AbortController();
    // The server never answers; the request is aborted once the server has it.
    const url = await serve(() => controller.abort());
    await expect(httpPost(`${url}/`, { ...post(), signal: controller.signal })).rejects.toThrow(
      "request failed",
    );
  });

  it("refuses a URL that is not http or https", async () => {
    await expect(httpPost("ftp://127.0.0.1/x", post())).rejects.toThrow(
      "ftp: is not http: or https:",
    );
  });
});
