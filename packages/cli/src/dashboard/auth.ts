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
 */
export interface Guard {
  port: number;
  token: string;
  csrf: string;
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

export function origins(port: number): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
}

export function checkRequest(req: IncomingMessage, url: URL, guard: Guard): Verdict {
  const host = (req.headers.host ?? "").toLowerCase();
  if (!origins(guard.port).some((o) => o === `http://${host}`)) {
    return {
      kind: "refuse",
      status: 403,
      message: `Host "${req.headers.host ?? ""}" is not this dashboard; open http://127.0.0.1:${guard.port}/`,
    };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !origins(guard.port).includes(origin)) {
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

/** The extra checks of the write action, once the body is read. */
export function checkWrite(req: IncomingMessage, form: URLSearchParams, guard: Guard): Verdict {
  const origin = req.headers.origin;
  if (origin === undefined || !origins(guard.port).includes(origin)) {
    return { kind: "refuse", status: 403, message: "a write needs a same-origin Origin header" };
  }
  const header = req.headers["x-uwf-csrf"];
  const csrf = typeof header === "string" ? header : form.get("csrf");
  if (csrf === null || !same(csrf, guard.csrf)) {
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
