import type { IncomingMessage, ServerResponse } from "node:http";
import type { Runner } from "@united-workforce/engine";
import { errorMessage, isUwfError } from "@united-workforce/util";
import { answerHuman, answerThread, runNextIfIdle } from "./answer.js";
import { APP_JS, STYLE_CSS } from "./assets/index.js";
import { checkWrite, type Guard } from "./auth.js";
import { stepDetail, threadView } from "./data/thread.js";
import { listThreads, parseFilter, threadStatus, waitingForAPerson } from "./data/threads.js";
import type { WaitingIndex } from "./data/waiting-index.js";
import { listWorkflows, workflowByHash, workflowView } from "./data/workflows.js";
import { githubHookRoute, type HookContext } from "./github-hook.js";
import { answerByLinkRoute, answerLinkRoute } from "./link-routes.js";
import type { LiveFeed } from "./live.js";
import { errorPage } from "./pages/layout.js";
import { stepPage, threadPage } from "./pages/thread.js";
import { threadsPage } from "./pages/threads.js";
import { formAnswer } from "./pages/wait.js";
import { workflowPage, workflowsPage } from "./pages/workflows.js";
import { asset, failed, html, json, plain, readBody, redirect, send } from "./respond.js";

export interface RouteContext extends HookContext {
  runner: Runner;
  /** `dashboard.publicUrl`: answer links are served only when it is set. */
  publicUrl: string | null;
  /** The answer links' key (read, or made, on first use). */
  linkKey(): Buffer;
  feed: LiveFeed;
  guard: Guard;
  waiting: WaitingIndex;
}

type Handler = (
  ctx: RouteContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  params: string[],
) => Promise<void>;

const ID = "([0-9A-HJKMNP-TV-Z]{26})";
const HASH = "([0-9A-HJKMNP-TV-Z]{13})";
const NAME = "([^/]+)";
const LINK = "([A-Za-z0-9._-]{1,200})";

/** Every route: method, path pattern, handler. Anything else is 404. */
const ROUTES: [string, RegExp, Handler][] = [
  ["GET", /^\/$/, async (_c, _q, res) => redirect(res, "/threads")],
  ["GET", /^\/threads$/, threadsRoute],
  ["GET", re(`/threads/${ID}`), threadRoute],
  ["GET", re(`/threads/${ID}/steps/${HASH}`), stepRoute],
  ["POST", re(`/threads/${ID}/answer`), answerRoute],
  ["GET", re(`/answer/${LINK}`), answerLinkRoute],
  ["POST", re(`/answer/${LINK}`), answerByLinkRoute],
  ["POST", /^\/hooks\/github$/, githubHookRoute],
  ["GET", /^\/workflows$/, workflowsRoute],
  [
    "GET",
    re(`/workflows/hash/${HASH}`),
    async (c, _q, res, _u, [hash]) =>
      html(res, workflowPage(await workflowByHash(c.runner, hash!))),
  ],
  ["GET", re(`/workflows/${NAME}`), workflowRoute],
  ["GET", /^\/events$/, eventsRoute],
  ["GET", /^\/api\/threads$/, async (c, _q, res, url) => json(res, await listApi(c, url))],
  [
    "GET",
    re(`/api/threads/${ID}`),
    async (c, _q, res, _u, [id]) => json(res, await threadView(c.runner, id!)),
  ],
  [
    "GET",
    re(`/api/threads/${ID}/status`),
    async (c, _q, res, _u, [id]) => json(res, await threadStatus(c.runner, id!)),
  ],
  [
    "GET",
    re(`/api/threads/${ID}/steps/${HASH}`),
    async (c, _q, res, _u, [id, hash]) => json(res, await stepDetail(c.runner, id!, hash!)),
  ],
  ["POST", re(`/api/threads/${ID}/answer`), answerApiRoute],
  ["GET", /^\/api\/workflows$/, async (c, _q, res) => json(res, await listWorkflows(c.runner))],
  [
    "GET",
    re(`/api/workflows/hash/${HASH}`),
    async (c, _q, res, _u, [hash]) => json(res, await workflowByHash(c.runner, hash!)),
  ],
  [
    "GET",
    re(`/api/workflows/${NAME}`),
    async (c, _q, res, url, [name]) =>
      json(
        res,
        await workflowView(c.runner, decodeURIComponent(name!), url.searchParams.get("version")),
      ),
  ],
  ["GET", /^\/assets\/style\.css$/, async (_c, _q, res) => asset(res, "text/css", STYLE_CSS)],
  ["GET", /^\/assets\/app\.js$/, async (_c, _q, res) => asset(res, "text/javascript", APP_JS)],
];

function re(path: string): RegExp {
  return new RegExp(`^${path}$`);
}

/** Answer one request from the route table; 404 (a page or JSON) or 405 otherwise. */
export async function route(
  ctx: RouteContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  let allowed = false;
  for (const [method, pattern, handler] of ROUTES) {
    const match = pattern.exec(url.pathname);
    if (!match) continue;
    allowed = true;
    if (method !== req.method) continue;
    try {
      await handler(ctx, req, res, url, match.slice(1));
    } catch (error) {
      failed(res, url, error);
    }
    return;
  }
  if (allowed) return plain(res, 405, "method not allowed");
  const api = url.pathname.startsWith("/api/");
  if (api)
    return json(res, { error: { code: "NOT_FOUND", message: "no such page", hint: null } }, 404);
  send(res, 404, "text/html", errorPage(404, `There is no page ${url.pathname}.`, null).text);
}

async function threadsRoute(c: RouteContext, _q: IncomingMessage, res: ServerResponse, url: URL) {
  const filter = parseFilter(url.searchParams);
  const [{ rows, more }, waiting, workflows] = await Promise.all([
    listThreads(c.runner, filter),
    filter.offset === 0 ? c.waiting.rows() : [],
    c.runner.store.registry.list(),
  ]);
  html(
    res,
    threadsPage(
      filter,
      rows,
      more,
      waitingForAPerson(waiting, filter),
      workflows.map((w) => w.name),
    ),
  );
}

async function listApi(c: RouteContext, url: URL) {
  const { rows, more } = await listThreads(c.runner, parseFilter(url.searchParams));
  return { threads: rows, more };
}

async function threadRoute(
  c: RouteContext,
  _q: IncomingMessage,
  res: ServerResponse,
  url: URL,
  [id]: string[],
) {
  const view = await threadView(c.runner, id!);
  const answered = url.searchParams.get("answered");
  const notice =
    answered === "human"
      ? "Your answer was recorded; the thread routed on."
      : answered === "next"
        ? "Your answer was recorded; the next step runs."
        : answered !== null
          ? "Your answer was sent; the thread resumed."
          : null;
  html(res, threadPage(view, c.guard.csrf, notice));
}

async function stepRoute(
  c: RouteContext,
  _q: IncomingMessage,
  res: ServerResponse,
  _u: URL,
  [id, hash]: string[],
) {
  html(res, stepPage(await stepDetail(c.runner, id!, hash!)));
}

async function workflowsRoute(c: RouteContext, _q: IncomingMessage, res: ServerResponse) {
  const { rows, problems } = await listWorkflows(c.runner);
  html(res, workflowsPage(rows, problems));
}

async function workflowRoute(
  c: RouteContext,
  _q: IncomingMessage,
  res: ServerResponse,
  url: URL,
  [name]: string[],
) {
  html(
    res,
    workflowPage(
      await workflowView(c.runner, decodeURIComponent(name!), url.searchParams.get("version")),
    ),
  );
}

async function eventsRoute(c: RouteContext, _q: IncomingMessage, res: ServerResponse, url: URL) {
  const thread = url.searchParams.get("thread") ?? "*";
  if (thread !== "*" && !/^[0-9A-HJKMNP-TV-Z]{26}$/.test(thread))
    return plain(res, 400, "thread must be a thread id or *");
  c.feed.watch(thread, res);
}

/**
 * The form on a suspended thread's page: a human role's answer is recorded (`thread answer`),
 * anything else resumed (`thread resume`); then the thread is shown. A human answer that does
 * not fit the role's schema shows the page again with what was wrong and what was typed.
 */
async function answerRoute(
  c: RouteContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  [id]: string[],
) {
  const form = new URLSearchParams(await readBody(req));
  const verdict = checkWrite(req, form, c.guard);
  if (verdict.kind === "refuse") return plain(res, verdict.status, verdict.message);
  const pointer = await c.runner.store.threads.get(id!).catch(() => null);
  if (pointer?.status === "suspended" && pointer.suspended?.kind === "human") {
    try {
      await answerHuman(c, id!, formAnswer(form));
    } catch (error) {
      if (!isUwfError(error) || !["OUTPUT_INVALID", "USAGE"].includes(error.code))
        return failed(res, url, error, 409);
      const view = await threadView(c.runner, id!);
      // The engine's hint is the command line's; the form says the same for the page.
      const message = `${error.message}\nNothing was written: fix the answer and send it again.`;
      return send(
        res,
        422,
        "text/html",
        threadPage(view, c.guard.csrf, null, { error: message, values: form }).text,
      );
    }
    if (form.get("next") === "1") {
      let ran: boolean;
      try {
        ran = await runNextIfIdle(c, id!);
      } catch (error) {
        const view = await threadView(c.runner, id!);
        const notice = `Your answer was recorded, but the next step did not start: ${errorMessage(error)}`;
        return html(res, threadPage(view, c.guard.csrf, notice));
      }
      return redirect(res, `/threads/${id}?answered=${ran ? "next" : "human"}`);
    }
    return redirect(res, `/threads/${id}?answered=human`);
  }
  try {
    await answerThread(c, id!, form.get("answer") ?? "");
  } catch (error) {
    return failed(res, url, error, 409);
  }
  redirect(res, `/threads/${id}?answered=1`);
}

/**
 * The same for scripts, with the X-Uwf-Csrf header: JSON `{ "answer": "…" }` resumes; a
 * human role takes `{ "status": "…", "fields": { "name": "value" }, "body": "…" }`.
 */
async function answerApiRoute(
  c: RouteContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  [id]: string[],
) {
  const body = await readBody(req);
  const verdict = checkWrite(req, new URLSearchParams(), c.guard);
  if (verdict.kind === "refuse") return plain(res, verdict.status, verdict.message);
  let sent: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed !== null && typeof parsed === "object") sent = parsed as Record<string, unknown>;
  } catch {
    sent = {};
  }
  if (typeof sent.status === "string") {
    const fields = sent.fields !== null && typeof sent.fields === "object" ? sent.fields : {};
    try {
      const doc = await answerHuman(c, id!, {
        status: sent.status,
        fields: Object.entries(fields).map(([k, v]) => [
          k,
          typeof v === "string" ? v : JSON.stringify(v),
        ]),
        body: typeof sent.body === "string" ? sent.body : "",
      });
      if (sent.next === true) await runNextIfIdle(c, id!);
      return json(res, doc);
    } catch (error) {
      return failed(res, url, error, 409);
    }
  }
  const answer = sent.answer;
  if (typeof answer !== "string")
    return plain(
      res,
      400,
      'send JSON { "answer": "…" }, or { "status": "…", "fields": {…} } for a human role',
    );
  try {
    const state = await answerThread(c, id!, answer);
    json(res, { thread: id, resumed: true, state });
  } catch (error) {
    failed(res, url, error, 409);
  }
}
