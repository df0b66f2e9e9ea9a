import type { IncomingMessage, ServerResponse } from "node:http";
import type { ThreadPointer } from "@united-workforce/protocol";
import { isUwfError } from "@united-workforce/util";
import { answerHuman, answerThread, runNextIfIdle } from "./answer.js";
import { type AnswerLinkClaims, linkCsrf, stillWaiting, verifyAnswerLink } from "./answer-link.js";
import { checkWrite } from "./auth.js";
import { threadStatus } from "./data/threads.js";
import { waitView } from "./data/wait.js";
import type { Html } from "./html.js";
import { answeredByLinkPage, answerLinkPage, linkRefusedPage } from "./pages/answer-link.js";
import { errorPage } from "./pages/layout.js";
import { formAnswer } from "./pages/wait.js";
import { failed, html, readBody, send } from "./respond.js";
import type { RouteContext } from "./routes.js";

/** Who a link's human answer is recorded as (`thread answer --by`): whoever held the link. */
const LINK_ANSWERER = "answer link";

type Checked =
  | { ok: true; claims: AnswerLinkClaims; pointer: ThreadPointer }
  | { ok: false; page: Html; status: 403 | 404 };

/** The page an answer link opens: its thread's wait and form, while the link is good. */
export async function answerLinkRoute(
  c: RouteContext,
  _q: IncomingMessage,
  res: ServerResponse,
  url: URL,
  [token]: string[],
): Promise<void> {
  const checked = await checkLink(c, token!);
  if (!checked.ok) return send(res, checked.status, "text/html", checked.page.text);
  await showForm(c, res, url, token!, checked.pointer, null, 200);
}

/**
 * The answer sent from a link's page: checked like the dashboard's (same origin, the page's
 * CSRF token, here the link's own), then recorded or resumed as the dashboard's form does.
 * The thread then moves on, and the link with it is spent.
 */
export async function answerByLinkRoute(
  c: RouteContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  [token]: string[],
): Promise<void> {
  const form = new URLSearchParams(await readBody(req));
  const checked = await checkLink(c, token!);
  if (!checked.ok) return send(res, checked.status, "text/html", checked.page.text);
  const verdict = checkWrite(req, form, c.guard, linkCsrf(c.linkKey(), token!));
  if (verdict.kind === "refuse")
    return send(res, verdict.status, "text/html", linkRefusedPage(verdict.message).text);
  const { pointer } = checked;
  const ctx = { ...c, by: LINK_ANSWERER };
  let what: string;
  try {
    if (pointer.suspended?.kind === "human") {
      try {
        await answerHuman(ctx, pointer.thread, formAnswer(form));
      } catch (error) {
        if (!isUwfError(error) || !["OUTPUT_INVALID", "USAGE"].includes(error.code)) throw error;
        const message = `${error.message}\nNothing was written: fix the answer and send it again.`;
        return await showForm(c, res, url, token!, pointer, { error: message, values: form }, 422);
      }
      what =
        form.get("next") === "1" && (await runNextIfIdle(c, pointer.thread))
          ? "Your answer was recorded; the next step runs."
          : "Your answer was recorded; the thread routed on.";
    } else {
      await answerThread(c, pointer.thread, form.get("answer") ?? "");
      what = "Your answer was sent; the thread resumed.";
    }
  } catch (error) {
    return failed(res, url, error, 409);
  }
  html(res, answeredByLinkPage(pointer.thread, pointer.title ?? null, what));
}

async function showForm(
  c: RouteContext,
  res: ServerResponse,
  url: URL,
  token: string,
  pointer: ThreadPointer,
  sent: Parameters<typeof answerLinkPage>[3],
  status: number,
): Promise<void> {
  const wait = await waitView(c.runner, pointer);
  if (wait === null) return send(res, 403, "text/html", linkRefusedPage(movedOn("idle")).text);
  const page = answerLinkPage(
    { thread: pointer.thread, title: pointer.title ?? null, workflow: pointer.workflow, wait },
    url.pathname,
    linkCsrf(c.linkKey(), token),
    sent,
  );
  send(res, status, "text/html", page.text);
}

/** Signed by this uwf, not expired, and its thread still waits as it did: else the page why. */
async function checkLink(c: RouteContext, token: string): Promise<Checked> {
  if (c.publicUrl === null) {
    const page = errorPage(
      404,
      "Answer links are off: config.yaml sets no dashboard.publicUrl.",
      null,
    );
    return { ok: false, status: 404, page };
  }
  const verdict = verifyAnswerLink(c.linkKey(), token, Date.now());
  if (!verdict.ok) {
    const message =
      verdict.reason === "expired"
        ? `This link expired at ${new Date(verdict.claims!.expiresAtMs).toISOString()}.`
        : "This link is not valid: this uwf did not make it, or it was changed.";
    return { ok: false, status: 403, page: linkRefusedPage(message) };
  }
  const { claims } = verdict;
  const pointer = await c.runner.store.threads.get(claims.thread).catch(() => null);
  const row = pointer === null ? null : await threadStatus(c.runner, claims.thread);
  if (pointer === null || row === null || !stillWaiting(claims, pointer, row.status)) {
    return {
      ok: false,
      status: 403,
      page: linkRefusedPage(movedOn(row?.status ?? "gone")),
    };
  }
  return { ok: true, claims, pointer };
}

function movedOn(status: string): string {
  return `This link was used, or its thread moved on: it is ${status} now, no longer waiting for this answer. A link answers one wait once.`;
}
