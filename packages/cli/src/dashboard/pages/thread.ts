import type { ThreadTreeEntry } from "@united-workforce/protocol";
import { costText } from "@united-workforce/util";
import type { StepDetail, StepView, ThreadView } from "../data/thread.js";
import { type Html, html } from "../html.js";
import { cost, costFact, duration, page, statusBadge, tokens, when } from "./layout.js";

/** A thread: its status, the question it waits on, live output, the steps, its forks. */
export function threadPage(view: ThreadView, csrf: string, notice: string | null): Html {
  const { row, pointer } = view;
  const usage = pointer.usage;
  return page(
    { title: `Thread ${row.thread}`, section: "threads", live: row.thread, csrf },
    html`<nav class="crumbs" aria-label="breadcrumb"><a href="/threads">Threads</a> &rsaquo; <span class="mono">${row.thread}</span></nav>
<h1 class="thread-title"><span class="mono">${row.thread}</span> <span data-thread="${row.thread}">${statusBadge(row.status)}</span></h1>
${notice ? html`<p class="notice" role="status">${notice}</p>` : ""}
<dl class="facts">
<dt>Workflow</dt><dd><a href="/workflows/${encodeURIComponent(pointer.workflow)}?version=${pointer.workflowHash}">${pointer.workflow}</a> <span class="mono dim">${pointer.workflowHash}</span></dd>
<dt>Steps</dt><dd>${view.steps.length}${view.nextRole ? html` &middot; next: <b>${view.nextRole}</b>` : ""}</dd>
<dt>Usage</dt><dd>${usage ? html`${tokens(usage.inputTokens, usage.outputTokens)} &middot; ${threadCostFact(pointer)}` : "none yet"}</dd>
<dt>Working dir</dt><dd class="mono">${pointer.cwd}</dd>
<dt>Created</dt><dd>${when(pointer.createdAt)}</dd><dt>Updated</dt><dd>${when(pointer.updatedAt)}</dd>
</dl>
<details class="task"><summary>Task (start prompt)</summary><pre>${view.startPrompt}</pre></details>
${answerForm(view, csrf)}
<section id="live" class="live" aria-labelledby="live-h"${row.status === "running" ? "" : html` hidden`}><h2 id="live-h">Running now</h2><p id="live-role">${row.status === "running" ? "An exec is running; its next output appears here." : ""}</p><pre id="live-output" aria-live="polite" tabindex="0"></pre></section>
<section aria-labelledby="steps-h"><h2 id="steps-h">Steps</h2>${
      view.steps.length === 0
        ? html`<p class="empty">No steps yet. Run one with <code>uwf thread exec ${row.thread}</code>.</p>`
        : html`<ol class="timeline" id="timeline">${view.steps.map((s) => stepItem(row.thread, s))}</ol>`
    }</section>
<section aria-labelledby="forks-h"><h2 id="forks-h">Forks</h2>${forkTree(view)}</section>`,
  );
}

function answerForm(view: ThreadView, csrf: string): Html {
  const { row, pointer } = view;
  const info = pointer.suspended;
  if (row.status !== "suspended" || !info) return html``;
  const question = info.kind === "question";
  return html`<section class="ask" aria-labelledby="ask-h"><h2 id="ask-h">${question ? `${info.role} asks` : info.kind === "failure" || info.kind === "retry" ? `${info.role} failed` : info.kind === "guard" ? "Stopped by a guard" : "Stopped by a budget"}</h2>
<blockquote class="question" id="question">${info.reason}</blockquote>
<form method="post" action="/threads/${row.thread}/answer" class="answer">
<input type="hidden" name="csrf" value="${csrf}">
<label for="answer">${question ? "Your answer" : "A note for the retry (optional)"}</label>
<textarea id="answer" name="answer" rows="4"${question ? html` required` : ""}></textarea>
<button type="submit">${question ? "Answer and resume" : "Retry the step"}</button>
<p class="dim">Same as <code>uwf thread resume ${row.thread} -p "&hellip;"</code>: runs the next step in the background.</p>
</form></section>`;
}

function stepItem(thread: string, s: StepView): Html {
  return html`<li class="step" id="step-${s.hash}"><div class="step-head"><span class="step-n">#${s.number}</span> <b class="role">${s.role}</b> <span class="arrow">&rarr;</span> <span class="badge out">${s.status}</span> <a class="mono" href="/threads/${thread}/steps/${s.hash}">${s.hash}</a></div>
<div class="step-meta"><span title="agent">${s.agent}</span> &middot; <span title="duration">${duration(s.durationMs)}</span> &middot; <span title="tokens">${tokens(s.usage.inputTokens, s.usage.outputTokens)}</span> &middot; <span title="cost">${costFact(s.usage.costUsd)}</span>${s.attempts > 1 ? html` &middot; ${s.attempts} attempts` : ""} &middot; ${when(s.startedAt)}</div>
<details><summary>Output</summary><pre>${JSON.stringify(s.output, null, 2)}</pre></details></li>`;
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
        html`<li>${t.thread === view.row.thread ? html`<b class="mono" aria-current="page">${t.thread}</b> (this thread)` : html`<a class="mono" href="/threads/${t.thread}">${t.thread}</a>`} ${statusBadge(t.status)} <span class="dim">${t.steps} steps${
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
    html`<nav class="crumbs" aria-label="breadcrumb"><a href="/threads">Threads</a> &rsaquo; <a class="mono" href="/threads/${detail.thread}">${detail.thread}</a> &rsaquo; step</nav>
<h1><b>${s.role}</b> &rarr; <span class="badge out">${s.status}</span> <span class="mono dim">${s.hash}</span></h1>
<dl class="facts"><dt>Agent</dt><dd>${s.agent}</dd><dt>Duration</dt><dd>${duration(s.durationMs)}</dd><dt>Tokens</dt><dd>${tokens(s.usage.inputTokens, s.usage.outputTokens)}${s.usage.cacheReadTokens !== null ? html` &middot; ${s.usage.cacheReadTokens} cache read` : ""}</dd><dt>Cost</dt><dd>${cost(s.usage.costUsd)}</dd><dt>Started</dt><dd>${when(s.startedAt)}</dd><dt>Working dir</dt><dd class="mono">${detail.cwd}</dd>${detail.prev ? html`<dt>Previous</dt><dd><a class="mono" href="/threads/${detail.thread}/steps/${detail.prev}">${detail.prev}</a></dd>` : ""}</dl>
<section aria-labelledby="out-h"><h2 id="out-h">Output</h2><pre>${JSON.stringify(s.output, null, 2)}</pre></section>
<section aria-labelledby="body-h"><h2 id="body-h">Body</h2><pre class="wrap">${detail.body || "(empty)"}</pre></section>
<section aria-labelledby="edge-h"><h2 id="edge-h">Moderator instruction</h2><pre class="wrap">${detail.edgePrompt}</pre></section>
<section aria-labelledby="prompt-h"><h2 id="prompt-h">Prompt the agent received</h2><pre class="wrap" id="prompt">${detail.prompt}</pre></section>`,
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
