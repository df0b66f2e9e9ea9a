import { durationText, tokensText, usdText } from "@united-workforce/util";
import { type Html, html } from "../html.js";

export interface PageOptions {
  title: string;
  /** Which tab of the header is current. */
  section: "threads" | "workflows" | null;
  /** The thread whose events the page follows live (`*` for every thread), if any. */
  live?: string;
  csrf?: string;
  /** A page opened by an answer link: no sections to go to, no script (both need the token). */
  bare?: boolean;
}

/** The frame of every page: header with the two sections, main content, the live script. */
export function page(options: PageOptions, body: Html): Html {
  const tab = (name: "threads" | "workflows", href: string, label: string) =>
    html`<a href="${href}"${options.section === name ? html` aria-current="page"` : ""}>${label}</a>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${options.title} &middot; uwf</title><link rel="stylesheet" href="/assets/style.css"><link rel="icon" href="data:,"></head>
<body${options.live ? html` data-live="${options.live}"` : ""}${options.csrf ? html` data-csrf="${options.csrf}"` : ""}>
<a class="skip" href="#main">Skip to content</a>
${
  options.bare
    ? html`<header class="top"><span class="brand">uwf</span></header>`
    : html`<header class="top"><a class="brand" href="/">uwf</a><nav aria-label="sections">${tab("threads", "/threads", "Threads")}${tab("workflows", "/workflows", "Workflows")}</nav><span class="conn" id="conn" role="status" aria-live="polite"></span></header>`
}
<main id="main" tabindex="-1">${body}</main>
${options.bare ? "" : html`<script src="/assets/app.js" defer></script>`}
</body></html>`;
}

/** A relative time for people, the exact one in the title attribute. */
export function when(iso: string): Html {
  if (!iso) return html`&mdash;`;
  return html`<time datetime="${iso}" title="${iso}">${iso.replace("T", " ").slice(0, 19)}</time>`;
}

export function statusBadge(status: string): Html {
  return html`<span class="badge s-${status}" data-field="status">${status}</span>`;
}

export function cost(usd: number | null): string {
  return usd === null ? "unknown" : usdText(usd);
}

/** A thread's cost, `≥` when some of its steps reported none (a lower bound). */
export function threadCost(usd: number | null, unknownSteps: number): string {
  return unknownSteps > 0 && usd !== null ? `≥ ${cost(usd)}` : cost(usd);
}

/** A cost among other facts: unknown must say of what. */
export function costFact(usd: number | null): string {
  return usd === null ? "cost unknown" : cost(usd);
}

/** Figures as the CLI writes them (util's `figures`): one way of writing them everywhere. */
export const duration = durationText;

export function tokens(inputTokens: number | null, outputTokens: number | null): string {
  const text = tokensText({ inputTokens, outputTokens });
  return text === "?" ? "tokens unknown" : text;
}

export function errorPage(status: number, message: string, hint: string | null): Html {
  return page(
    { title: `${status}`, section: null },
    html`<h1>${status === 404 ? "Not found" : "Something went wrong"}</h1><p class="error">${message}</p>${hint ? html`<p>${hint}</p>` : ""}<p><a href="/threads">Back to the threads</a></p>`,
  );
}
