import type { WaitView } from "../data/wait.js";
import { type Html, html } from "../html.js";
import { page } from "./layout.js";
import { threadName } from "./thread.js";
import { type SentAnswer, waitPanel } from "./wait.js";

/** What an answer link's page shows of its thread: its name and workflow, and its wait. */
export interface LinkView {
  thread: string;
  title: string | null;
  workflow: string;
  wait: WaitView;
}

/**
 * The page an answer link opens: only the thread's wait and its form, which posts back to the
 * link. Nothing on it leads elsewhere: the rest of the dashboard needs its token.
 */
export function answerLinkPage(
  view: LinkView,
  action: string,
  csrf: string,
  sent: SentAnswer | null,
): Html {
  const name = threadName(view.thread, view.title);
  return page(
    { title: `${name} · answer`, section: null, bare: true },
    html`<h1 class="thread-title">${name}</h1>
<p class="mono dim thread-id">${view.thread} &middot; ${view.workflow}</p>
${waitPanel(view.thread, view.wait, csrf, sent, action)}
<p class="dim">This link answers this wait once. The dashboard (<code>uwf dashboard</code>) shows the whole thread.</p>`,
  );
}

/** After an answer sent through a link: what happened, and that the link is now spent. */
export function answeredByLinkPage(thread: string, title: string | null, what: string): Html {
  return page(
    { title: "Answer sent", section: null, bare: true },
    html`<h1>Answer sent</h1><p class="notice" role="status">${what}</p>
<p>Thread <b>${threadName(thread, title)}</b> <span class="mono dim">${thread}</span>. This link is now used; the dashboard (<code>uwf dashboard</code>) shows what the thread does next.</p>`,
  );
}

/** Why a link opens nothing: forged, expired, or its wait is over. */
export function linkRefusedPage(message: string): Html {
  return page(
    { title: "Link not valid", section: null, bare: true },
    html`<h1>This link cannot be used</h1><p class="error" role="alert">${message}</p>
<p>Open the dashboard (<code>uwf dashboard</code>) to see the thread, or wait for the next notification.</p>`,
  );
}
