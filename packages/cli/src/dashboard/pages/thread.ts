import type { ThreadTreeEntry } from "@united-workforce/protocol";
import { costText, diffStatText } from "@united-workforce/util";
import { shortThread } from "../../live/format.js";
import type { StepDetail, StepView, ThreadView } from "../data/thread.js";
import { type Html, html } from "../html.js";
import { graphEdges, graphSvg } from "./graph.js";
import { cost, costFact, duration, page, statusBadge, tokens, when } from "./layout.js";
import { raceSection } from "./races.js";
import { type SentAnswer, waitPanel } from "./wait.js";

/** A thread: what it waits for, where it is on its graph, its steps, children and forks. */
export function threadPage(
  view: ThreadView,
  csrf: string,
  notice: string | null,
  sent: SentAnswer | null = null,
): Html {
  const { row, pointer } = view;
  const usage = pointer.usage;
  const name = threadName(row.thread, pointer.title);
  const workflowPage = `/workflows/hash/${pointer.workflowHash}`;
  return page(
    { title: `${name} · thread`, section: "threads", live: row.thread, csrf },
    html`<nav class="crumbs" aria-label="breadcrumb"><a href="/threads">Threads</a> &rsaquo; <span>${name}</span></nav>
<h1 class="thread-title"><span data-field="title">${name}</span> <span data-thread="${row.thread}">${statusBadge(row.status)}</span></h1>
<p class="mono dim thread-id">${row.thread}</p>
${notice ? html`<p class="notice" role="status">${notice}</p>` : ""}
<dl class="facts">
<dt>Workflow</dt><dd><a href="${workflowPage}">${pointer.workflow}</a> <span class="mono dim">${pointer.workflowHash}</span></dd>
${pointer.rebasedFrom ? html`<dt>Rebased from</dt><dd><a class="mono" href="/threads/${pointer.rebasedFrom.thread}">${pointer.rebasedFrom.thread}</a>, parting after <a class="mono" href="/threads/${pointer.rebasedFrom.thread}/steps/${pointer.rebasedFrom.step}">${pointer.rebasedFrom.step}</a> (<code>uwf thread rebase</code>)</dd>` : ""}
${pointer.parent ? html`<dt>Fan-out of</dt><dd><a class="mono" href="/threads/${pointer.parent.thread}">${pointer.parent.thread}</a> (item ${pointer.parent.index})</dd>` : ""}
${(pointer.guidance ?? []).map((note) => html`<dt>Guidance</dt><dd>${note.text} <span class="dim">(pending since ${note.at}; <code>uwf thread steer</code>)</span></dd>`)}
<dt>Steps</dt><dd>${view.steps.length}${view.nextRole ? html` &middot; next: <b>${view.nextRole}</b>` : ""}</dd>
<dt>Usage</dt><dd>${usage ? html`${tokens(usage.inputTokens, usage.outputTokens)} &middot; ${threadCostFact(pointer)}` : "none yet"}</dd>
<dt>Working dir</dt><dd class="mono">${pointer.cwd}</dd>
<dt>Created</dt><dd>${when(pointer.createdAt)}</dd><dt>Updated</dt><dd>${when(pointer.updatedAt)}</dd>
</dl>
<details class="task"><summary>Task (start prompt)</summary><pre class="wrap">${view.startPrompt}</pre></details>
${row.status === "suspended" && view.wait ? waitPanel(row.thread, view.wait, csrf, sent) : ""}
${runningNow(view)}
<section aria-labelledby="route-h"><h2 id="route-h">Route</h2><div class="graph-wrap" tabindex="0" aria-label="the thread's route on its workflow graph, scrollable">${graphSvg(view.workflow, graphEdges(view.workflow), { ...view.route, linkBase: workflowPage })}</div>
<p class="dim">Edges taken are drawn solid with how often (&middot;n); ${view.route.current ? html`the thread is at <b>${view.route.current}</b>.` : "nothing runs next."}</p></section>
<section aria-labelledby="steps-h"><h2 id="steps-h">Steps</h2>${
      view.steps.length === 0
        ? html`<p class="empty">No steps yet. Run one with <code>uwf thread exec ${row.thread}</code>.</p>`
        : html`<ol class="timeline" id="timeline">${view.steps.map((s) => stepItem(row.thread, s))}</ol>`
    }</section>
${view.children.length > 0 ? childList(view) : ""}
${raceSection(row.thread, view.races)}
<section aria-labelledby="forks-h"><h2 id="forks-h">Forks</h2>${forkTree(view)}</section>`,
  );
}

/** The title people gave a thread, or its short id. */
export function threadName(thread: string, title: string | null | undefined): string {
  return title?.trim() ? title : shortThread(thread);
}

/** While an exec holds the thread: which role runs, by which agent, for how long; its output. */
function runningNow(view: ThreadView): Html {
  const run = view.running;
  return html`<section id="live" class="live" aria-labelledby="live-h"${run ? "" : html` hidden`}><h2 id="live-h">Running now</h2><p id="live-role">${
    run
      ? html`<b data-field="running-role">${run.role ?? "a step"}</b> by <span data-field="running-agent">${run.agent}</span> &middot; <span class="elapsed" data-since="${run.since}">running since ${when(run.since)}</span>`
      : ""
  }</p><pre id="live-output" aria-live="polite" tabindex="0"></pre></section>`;
}

/** A step: its status, usage, its key output fields inline, long values and body to expand. */
function stepItem(thread: string, s: StepView): Html {
  const fields = Object.entries(s.output).filter(([key]) => key !== "$status");
  return html`<li class="step" id="step-${s.hash}"><div class="step-head"><span class="step-n">#${s.number}</span> <b class="role">${s.role}</b> <span class="arrow">&rarr;</span> <span class="badge out">${s.status}</span> <a class="mono" href="/threads/${thread}/steps/${s.hash}">${s.hash}</a></div>
<div class="step-meta dim">${s.agent} &middot; ${duration(s.durationMs)} &middot; ${tokens(s.usage.inputTokens, s.usage.outputTokens)} &middot; ${costFact(s.usage.costUsd)}${s.attempts > 1 ? html` &middot; ${s.attempts} attempts` : ""}${s.diffStat ? html` &middot; <span class="diffstat">${diffStatText(s.diffStat)}</span>` : ""} &middot; ${when(s.startedAt)}</div>
${fields.length > 0 ? html`<dl class="output">${fields.map(([key, value]) => outputField(key, value))}</dl>` : ""}
${s.body.trim() ? html`<details class="body"><summary>Body (${lineCount(s.body)})</summary><pre class="wrap">${s.body}</pre></details>` : ""}</li>`;
}

/** Short values in full; a long or many-line one as its start, to expand. */
function outputField(key: string, value: unknown): Html {
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  const short = text.length <= 240 && !text.includes("\n");
  return html`<dt>${key}</dt><dd>${
    short
      ? html`<span class="value">${text}</span>`
      : html`<details><summary>${text.replace(/\s+/g, " ").slice(0, 120)}&hellip;</summary><pre class="wrap">${text}</pre></details>`
  }</dd>`;
}

function lineCount(text: string): string {
  const n = text.trimEnd().split("\n").length;
  return n === 1 ? "1 line" : `${n} lines`;
}

/** The threads its fan-outs made: each child's item, title, status, role and steps. */
function childList(view: ThreadView): Html {
  return html`<section aria-labelledby="children-h"><h2 id="children-h">Fan-out children</h2><div class="table-wrap"><table class="children"><thead><tr><th scope="col" class="num">Item</th><th scope="col">Thread</th><th scope="col">Status</th><th scope="col">Role</th><th scope="col" class="num">Steps</th></tr></thead><tbody>${view.children.map(
    (c) =>
      html`<tr data-thread="${c.thread}"><td class="num">${c.index}</td><td><a href="/threads/${c.thread}"${c.title ? "" : html` class="mono"`}>${threadName(c.thread, c.title)}</a>${c.title ? html` <span class="mono dim">${shortThread(c.thread)}</span>` : ""}</td><td>${statusBadge(c.status)}</td><td>${c.currentRole ?? "\u2014"}</td><td class="num">${c.steps}</td></tr>`,
  )}</tbody></table></div></section>`;
}

/** The fork family as a tree: each thread under the one that ran the step it was forked at. */
function forkTree(view: ThreadView): Html {
  const { threads } = view.tree;
  if (threads.length <= 1) {
    return html`<p class="empty">No forks. Fork any step with <code>uwf step fork &lt;step&gt;</code>; <code>uwf thread tree ${view.row.thread}</code> shows this tree in the terminal.</p>`;
  }
  const known = new Set(threads.map((t) => t.thread));
  const children = new Map<string | null, ThreadTreeEntry[]>();
  for (const t of threads) {
    const parent = t.parent !== null && known.has(t.parent) ? t.parent : null;
    children.set(parent, [...(children.get(parent) ?? []), t]);
  }
  const branch = (parent: string | null): Html => {
    const kids = children.get(parent) ?? [];
    if (kids.length === 0) return html``;
    return html`<ul class="${parent === null ? "tree" : ""}">${kids.map(
      (t) =>
        html`<li>${t.thread === view.row.thread ? html`<b class="mono" aria-current="page">${t.thread}</b> (this thread)` : html`<a class="mono" href="/threads/${t.thread}">${t.thread}</a>`}${t.title ? html` ${t.title}` : ""} ${statusBadge(t.status)} <span class="dim">${t.steps} steps${
          t.forkedFrom
            ? html` &middot; forked at step ${t.forkStep ?? "?"}${t.forkRole ? html` (${t.forkRole})` : ""}, <a class="mono" href="/threads/${t.thread}/steps/${t.forkedFrom}">${t.forkedFrom}</a>`
            : ""
        }</span>${branch(t.thread)}</li>`,
    )}</ul>`;
  };
  return html`<p>Threads sharing this thread's start, each under the thread it was forked from:</p>${branch(null)}`;
}
/** One step in full: output, body, the prompt the agent received. */
export function stepPage(detail: StepDetail): Html {
  const s = detail.step;
  return page(
    { title: `Step ${s.hash}`, section: "threads", live: detail.thread },
    html`<nav class="crumbs" aria-label="breadcrumb"><a href="/threads">Threads</a> &rsaquo; <a href="/threads/${detail.thread}"${detail.title ? "" : html` class="mono"`}>${threadName(detail.thread, detail.title)}</a> &rsaquo; step</nav>
<h1><b>${s.role}</b> &rarr; <span class="badge out">${s.status}</span> <span class="mono dim">${s.hash}</span></h1>
<dl class="facts"><dt>Agent</dt><dd>${s.agent}</dd><dt>Duration</dt><dd>${duration(s.durationMs)}</dd><dt>Tokens</dt><dd>${tokens(s.usage.inputTokens, s.usage.outputTokens)}${s.usage.cacheReadTokens !== null ? html` &middot; ${s.usage.cacheReadTokens} cache read` : ""}</dd><dt>Cost</dt><dd>${cost(s.usage.costUsd)}</dd>${s.diffStat ? html`<dt>Changed</dt><dd>${diffStatText(s.diffStat)}</dd>` : ""}<dt>Started</dt><dd>${when(s.startedAt)}</dd><dt>Working dir</dt><dd class="mono">${detail.cwd}</dd>${detail.prev ? html`<dt>Previous</dt><dd><a class="mono" href="/threads/${detail.thread}/steps/${detail.prev}">${detail.prev}</a></dd>` : ""}</dl>
<section aria-labelledby="out-h"><h2 id="out-h">Output</h2><pre>${JSON.stringify(s.output, null, 2)}</pre></section>
<section aria-labelledby="body-h"><h2 id="body-h">Body</h2><pre class="wrap">${detail.body || "(empty)"}</pre></section>
<section aria-labelledby="edge-h"><h2 id="edge-h">Moderator instruction</h2><pre class="wrap">${detail.edgePrompt}</pre></section>
<section aria-labelledby="prompt-h"><h2 id="prompt-h">Prompt the agent received</h2><pre class="wrap" id="prompt">${detail.prompt}</pre></section>
${detail.liveGuidance.length > 0 ? html`<section aria-labelledby="live-h"><h2 id="live-h">Guidance delivered while it ran</h2>${detail.liveGuidance.map((note) => html`<p class="dim">after turn ${note.afterTurn} &middot; ${when(note.deliveredAt)}</p><pre class="wrap">${note.text}</pre>`)}</section>` : ""}`,
  );
}

/** A thread's cost among its facts: `uwf usage`'s text, which names a lower bound. */
function threadCostFact(pointer: ThreadView["pointer"]): string {
  const costUsd = pointer.usage?.costUsd ?? null;
  if (costUsd === null) return costFact(null);
  return costText({
    costUsd,
    unknownCostSteps: pointer.unknownCostSteps ?? 0,
    steps: pointer.steps,
  });
}
