import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/**
 * Who may talk to the dashboard. It listens on 127.0.0.1 only, yet any web page the user opens
 * can make the browser send requests there, and DNS rebinding can make a foreign name resolve to
 * 127.0.0.1. So every request must:
 * - name this server in `Host` (127.0.0.1:<port> or localhost:<port>): a rebound name fails;
 * - come from no other origin (`Origin`, `Sec-Fetch-Site`);
 * - carry the secret token: in the URL printed at start (`?token=`, traded at once for a
 *   cookie), in that HttpOnly SameSite=Strict cookie, or as `Authorization: Bearer <token>`.
 * The one write action (answering a thread) also needs a same-origin `Origin` and the CSRF token
 * of the page that holds the form (or the `X-Uwf-Csrf` header for scripts).
 *
 * Served beyond this machine (`--host`, `dashboard.publicUrl`), the server also answers to
 * those names, and to nothing else: a rebound name still fails. Three kinds of request carry
 * their own proof instead of the token (`accessOf`): an answer link (signed, for one thread's
 * form and its one answer), GitHub's webhook (signed with its secret; GitHub's request names
 * whatever host it was sent to, and no page can sign one) and the stylesheet (no data).
 */
export interface Guard {
  port: number;
  token: string;
  csrf: string;
  /** The other names this server answers to: `--host`'s address, the public URL's host. */
  also?: ServedName[];
}

/** A name the server is reached by: as a `Host` header says it, and as an `Origin`. */
export interface ServedName {
  host: string;
  origin: string;
}

/** What a request must show: the session token, an answer link, GitHub's signature, nothing. */
export type Access = "session" | "link" | "hook" | "asset";

export function accessOf(method: string | undefined, pathname: string): Access {
  if (pathname === "/hooks/github") return "hook";
  if (/^\/answer\/[A-Za-z0-9._-]{1,200}$/.test(pathname)) return "link";
  if (method === "GET" && pathname === "/assets/style.css") return "asset";
  return "session";
}

export type Verdict =
  | { kind: "ok" }
  /** The token came in the URL: set the cookie and send the browser to the clean URL. */
  | { kind: "login"; location: string }
  | { kind: "refuse"; status: 400 | 401 | 403; message: string };

export function cookieName(port: number): string {
  // Cookies do not keep ports apart: two dashboards on one machine need two names.
  return `uwf_dashboard_${port}`;
}

export function loginCookie(guard: Guard): string {
  return `${cookieName(guard.port)}=${guard.token}; HttpOnly; SameSite=Strict; Path=/`;
}

/** The origins a page of this server may have. */
export function origins(guard: Guard): string[] {
  return [
    `http://127.0.0.1:${guard.port}`,
    `http://localhost:${guard.port}`,
    ...(guard.also ?? []).map((name) => name.origin),
  ];
}

function hosts(guard: Guard): string[] {
  return [
    `127.0.0.1:${guard.port}`,
    `localhost:${guard.port}`,
    ...(guard.also ?? []).map((name) => name.host),
  ];
}

/** The name a served address is reached by (`--host`), with its port; none for a wildcard. */
export function servedAddress(address: string, port: number): ServedName | null {
  if (["0.0.0.0", "::", "127.0.0.1", "localhost"].includes(address)) return null;
  const host = `${address.includes(":") ? `[${address}]` : address}:${port}`.toLowerCase();
  return { host, origin: `http://${host}` };
}

/** The name of the public URL (`dashboard.publicUrl`), as a proxy passes its `Host` on. */
export function publicName(publicUrl: string): ServedName {
  const url = new URL(publicUrl);
  return { host: url.host.toLowerCase(), origin: url.origin };
}

export function checkRequest(req: IncomingMessage, url: URL, guard: Guard): Verdict {
  const access = accessOf(req.method, url.pathname);
  if (access === "hook") return { kind: "ok" };
  const host = (req.headers.host ?? "").toLowerCase();
  if (!hosts(guard).includes(host)) {
    return {
      kind: "refuse",
      status: 403,
      message: `Host "${req.headers.host ?? ""}" is not this dashboard; open http://127.0.0.1:${guard.port}/`,
    };
  }
  // A link is opened from a chat (a cross-site navigation); its answer is checked as a write.
  if (access !== "session") return { kind: "ok" };
  const origin = req.headers.origin;
  if (origin !== undefined && !origins(guard).includes(origin)) {
    return { kind: "refuse", status: 403, message: `requests from ${origin} are refused` };
  }
  if (req.headers["sec-fetch-site"] === "cross-site") {
    return { kind: "refuse", status: 403, message: "cross-site requests are refused" };
  }
  const fromUrl = url.searchParams.get("token");
  if (fromUrl !== null && req.method === "GET") {
    if (!same(fromUrl, guard.token)) return { kind: "refuse", status: 401, message: "wrong token" };
    url.searchParams.delete("token");
    const search = url.searchParams.toString();
    return { kind: "login", location: `${url.pathname}${search ? `?${search}` : ""}` };
  }
  const presented = bearer(req) ?? cookie(req, cookieName(guard.port));
  if (presented === null || !same(presented, guard.token)) {
    return {
      kind: "refuse",
      status: 401,
      message: "open the URL `uwf dashboard` printed (it carries the token)",
    };
  }
  return { kind: "ok" };
}

/**
 * The extra checks of the write action, once the body is read; `expected` is the CSRF token of
 * the form's page (an answer link's own, else the session's).
 */
export function checkWrite(
  req: IncomingMessage,
  form: URLSearchParams,
  guard: Guard,
  expected = guard.csrf,
): Verdict {
  const origin = req.headers.origin;
  if (origin === undefined || !origins(guard).includes(origin)) {
    return { kind: "refuse", status: 403, message: "a write needs a same-origin Origin header" };
  }
  const header = req.headers["x-uwf-csrf"];
  const csrf = typeof header === "string" ? header : form.get("csrf");
  if (csrf === null || !same(csrf, expected)) {
    return { kind: "refuse", status: 403, message: "missing or wrong CSRF token; reload the page" };
  }
  return { kind: "ok" };
}

function bearer(req: IncomingMessage): string | null {
  const value = req.headers.authorization;
  const match = value ? /^Bearer\s+(\S+)$/i.exec(value) : null;
  return match ? match[1]! : null;
}

function cookie(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
