import { shortThread } from "../../live/format.js";
import { PAGE_SIZE, STATUS_FILTERS, type ThreadFilter, type ThreadRow } from "../data/threads.js";
import { type Html, html } from "../html.js";
import { page, statusBadge, threadCost, when } from "./layout.js";
import { threadName } from "./thread.js";
import { WAIT_LABELS } from "./wait.js";

/**
 * The thread list: filters (a plain GET form), the threads waiting for a person first, then
 * every thread in a table with paging; rows update live.
 */
export function threadsPage(
  filter: ThreadFilter,
  rows: ThreadRow[],
  more: boolean,
  waiting: ThreadRow[],
  workflows: string[],
): Html {
  const query = (offset: number) => {
    const params = new URLSearchParams();
    if (filter.status !== "all") params.set("status", filter.status);
    if (filter.workflow) params.set("workflow", filter.workflow);
    if (filter.text) params.set("q", filter.text);
    if (filter.title) params.set("title", filter.title);
    if (offset > 0) params.set("offset", String(offset));
    const text = params.toString();
    return text ? `/threads?${text}` : "/threads";
  };
  const filters = html`<form class="filters" method="get" action="/threads" role="search">
<label>Status <select name="status">${STATUS_FILTERS.map((s) => html`<option${s === filter.status ? html` selected` : ""}>${s}</option>`)}</select></label>
<label>Workflow <select name="workflow"><option value="">any</option>${workflows.map((w) => html`<option${w === filter.workflow ? html` selected` : ""}>${w}</option>`)}</select></label>
<label class="grow">Title <input type="search" name="title" value="${filter.title}" placeholder="words of the title"></label>
<label class="grow">Text <input type="search" name="q" value="${filter.text}" placeholder="id, role, question&hellip;"></label>
<button type="submit">Filter</button>${filter.status !== "all" || filter.workflow || filter.text || filter.title ? html` <a href="/threads">Clear</a>` : ""}
</form>`;
  const table =
    rows.length === 0
      ? html`<p class="empty">${filter.offset === 0 ? "No threads match." : "No threads on this page."} Start one with <code>uwf thread start &lt;workflow&gt; -p "&hellip;"</code>.</p>`
      : html`<div class="table-wrap"><table class="threads"><caption class="sr-only">Threads, newest first</caption>
<thead><tr><th scope="col">Thread</th><th scope="col">Status</th><th scope="col">Workflow</th><th scope="col">Role</th><th scope="col" class="num">Steps</th><th scope="col" class="num">Cost</th><th scope="col">Updated</th></tr></thead>
<tbody>${rows.map(threadRow)}</tbody></table></div>`;
  // No count of every match: a page costs what it shows; "Older" appears when more match.
  const from = rows.length === 0 ? 0 : filter.offset + 1;
  const to = filter.offset + rows.length;
  const pager = html`<nav class="pager" aria-label="pages"><span>${from}&ndash;${to}${more ? "" : ` of ${to}`}</span>${filter.offset > 0 ? html` <a href="${query(Math.max(0, filter.offset - PAGE_SIZE))}" rel="prev">Newer</a>` : ""}${more ? html` <a href="${query(filter.offset + PAGE_SIZE)}" rel="next">Older</a>` : ""}</nav>`;
  return page(
    { title: "Threads", section: "threads", live: "*" },
    html`<h1>Threads</h1>${filters}${waitingList(waiting)}<p class="notice" id="new-waits" hidden><a href="${query(0)}">A thread now waits for a person &mdash; show it</a></p><p class="notice" id="new-threads" hidden><a href="${query(0)}">New threads started &mdash; show them</a></p>${table}${pager}`,
  );
}

/** The threads only a person moves on, above the rest: what each waits for, and its question. */
function waitingList(waiting: ThreadRow[]): Html {
  if (waiting.length === 0) return html``;
  return html`<section class="waiting" aria-labelledby="waiting-h"><h2 id="waiting-h">Waiting for a person (${waiting.length})</h2><ul class="waiting-list">${waiting.map(
    (row) =>
      html`<li data-waiting="${row.thread}"><span class="badge w-${row.waitKind ?? ""}">${row.waitKind ? WAIT_LABELS[row.waitKind] : ""}</span> <a href="/threads/${row.thread}">${threadName(row.thread, row.title)}</a> <span class="dim">${row.workflow}</span>${row.waiting ? html`<div class="question">${firstLine(row.waiting)}</div>` : ""}</li>`,
  )}</ul></section>`;
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 199)}\u2026` : line;
}

function threadRow(row: ThreadRow): Html {
  return html`<tr data-thread="${row.thread}"${row.waitKind ? html` data-wait="${row.waitKind}"` : ""}><td><a href="/threads/${row.thread}"${row.title ? "" : html` class="mono"`}>${threadName(row.thread, row.title)}</a>${row.title ? html` <span class="mono dim">${shortThread(row.thread)}</span>` : ""}${row.waiting ? html`<div class="question" data-field="waiting">${row.waiting}</div>` : ""}${row.problem ? html`<div class="error">${row.problem}</div>` : ""}</td>
<td>${statusBadge(row.status)}</td><td>${row.workflowHash === null ? row.workflow : html`<a href="/workflows/hash/${row.workflowHash}">${row.workflow}</a>`}</td><td data-field="role">${row.currentRole ?? "\u2014"}</td><td class="num" data-field="steps">${row.steps}</td><td class="num" data-field="cost">${threadCost(row.costUsd, row.unknownCostSteps)}</td><td data-field="updated">${when(row.updatedAt)}</td></tr>`;
}
