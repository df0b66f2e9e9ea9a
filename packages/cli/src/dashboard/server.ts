import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Runner } from "@united-workforce/engine";
import { type EventStream, UwfError } from "@united-workforce/util";
import { readLinkKey } from "./answer-link.js";
import {
  checkRequest,
  type Guard,
  loginCookie,
  publicName,
  type ServedName,
  servedAddress,
} from "./auth.js";
import { WaitingIndex } from "./data/waiting-index.js";
import type { PlaceThread } from "./github-hook.js";
import { LiveFeed } from "./live.js";
import { STARTED, send } from "./respond.js";
import { type RouteContext, route } from "./routes.js";

export interface DashboardOptions {
  /** Reads what the pages show, and answers suspended threads in this process. */
  runner: Runner;
  /** The runner's events: an answer's step is seen starting there. */
  events: EventStream;
  home: string;
  /** Who answers human roles from the pages (`thread answer --by`): the user running it. */
  by: string;
  /** 0: a free port the system picks. */
  port: number;
  /** The address to listen on (`--host`); 127.0.0.1 when not given. */
  host?: string;
  /** `dashboard.publicUrl`: the name a proxy or tunnel serves it by; answer links need it. */
  publicUrl?: string | null;
  /** `webhooks.github`'s secret: `POST /hooks/github` is open only with one. */
  githubSecret?: string | null;
  /** Where a thread a webhook starts runs (default: `cwd`, the server's folder). */
  placeThread?: PlaceThread;
  cwd: string;
}

export interface Dashboard {
  /** The URL to open, with the token. */
  url: string;
  port: number;
  requests(): number;
  close(): Promise<void>;
}

/** The browser may run only our own files, in no frame, and send forms only to us. */
const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  // The first URL carries the token: never pass it on to another site. (Not `no-referrer`:
  // with it Chromium sends `Origin: null` on form posts, and the answer form would be refused.)
  "referrer-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

/** Serve the dashboard (on 127.0.0.1 unless `host` says otherwise) until `close`. */
export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  const token = randomBytes(24).toString("base64url");
  const csrf = randomBytes(24).toString("base64url");
  const stop = new AbortController();
  const waiting = new WaitingIndex(options.runner);
  const feed = new LiveFeed(options.runner, options.home, stop.signal, undefined, (row) =>
    waiting.update(row),
  );
  let count = 0;
  const guard: Guard = { port: 0, token, csrf };
  const runs = new Set<Promise<unknown>>();
  let linkKey: Buffer | undefined;
  const ctx: RouteContext = {
    githubSecret: options.githubSecret ?? null,
    cwd: options.cwd,
    placeThread: options.placeThread ?? (async () => ({ cwd: options.cwd })),
    publicUrl: options.publicUrl ?? null,
    linkKey: () => {
      linkKey ??= readLinkKey(options.home);
      return linkKey;
    },
    runner: options.runner,
    events: options.events,
    runs,
    by: options.by,
    feed,
    guard,
    waiting,
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const began = performance.now();
    count++;
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    const url = new URL(req.url ?? "/", `http://127.0.0.1:${guard.port}`);
    const verdict = checkRequest(req, url, guard);
    if (verdict.kind === "refuse") {
      send(res, verdict.status, "text/plain", `${verdict.message}\n`);
      return;
    }
    if (verdict.kind === "login") {
      res.writeHead(303, {
        location: verdict.location,
        "set-cookie": loginCookie(guard),
        "content-length": 0,
      });
      res.end();
      return;
    }
    STARTED.set(res, began);
    void route(ctx, req, res, url);
  });
  server.keepAliveTimeout = 5000;
  const listenHost = options.host ?? "127.0.0.1";
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port, listenHost, resolve);
    });
  } catch (error) {
    stop.abort();
    await feed.close();
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE")
      throw new UwfError("USAGE", `port ${options.port} is in use`, {
        hint: "Pick another with --port <n>, or leave --port out for a free one.",
      });
    if (
      ["EADDRNOTAVAIL", "ENOTFOUND", "EAI_AGAIN"].includes(
        (error as NodeJS.ErrnoException).code ?? "",
      )
    )
      throw new UwfError("USAGE", `cannot listen on ${listenHost}: no such address here`, {
        hint: "Give one of this machine's addresses with --host, or 0.0.0.0 for all of them.",
      });
    throw error;
  }
  const address = server.address();
  guard.port = typeof address === "object" && address ? address.port : options.port;
  const also: ServedName[] = [];
  const served = servedAddress(listenHost, guard.port);
  if (served !== null) also.push(served);
  if (options.publicUrl) also.push(publicName(options.publicUrl));
  guard.also = also;
  return {
    url: `${served?.origin ?? `http://127.0.0.1:${guard.port}`}/?token=${token}`,
    port: guard.port,
    requests: () => count,
    async close() {
      stop.abort();
      await feed.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // The runner's signal (the command's) has stopped them: they release their leases.
      await Promise.all(runs);
    },
  };
}
