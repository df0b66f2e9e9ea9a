import type { GithubTrigger } from "@united-workforce/protocol";
import type { WorkflowRow, WorkflowView } from "../data/workflows.js";
import { type Html, html } from "../html.js";
import { fanoutSummary, graphEdges, graphSvg, roleAnchor } from "./graph.js";
import { page, when } from "./layout.js";

export function workflowsPage(
  rows: WorkflowRow[],
  problems: { name: string; problem: string }[],
): Html {
  return page(
    { title: "Workflows", section: "workflows" },
    html`<h1>Workflows</h1>${
      rows.length === 0
        ? html`<p class="empty">No workflow is registered. Add one with <code>uwf workflow add &lt;file&gt;</code>.</p>`
        : html`<div class="table-wrap"><table><thead><tr><th scope="col">Name</th><th scope="col">Description</th><th scope="col" class="num">Versions</th><th scope="col">Current</th><th scope="col">Updated</th></tr></thead><tbody>${rows.map(
            (r) =>
              html`<tr><td><a href="/workflows/${encodeURIComponent(r.name)}">${r.name}</a></td><td>${r.description}</td><td class="num">${r.versions}</td><td class="mono">${r.hash}</td><td>${when(r.updatedAt)}</td></tr>`,
          )}</tbody></table></div>`
    }${
      problems.length > 0
        ? html`<h2>Unreadable entries</h2><ul>${problems.map((p) => html`<li><b>${p.name}</b>: <span class="error">${p.problem}</span></li>`)}</ul>`
        : ""
    }`,
  );
}

/** One workflow version: the graph drawn, the edges with their prompts, each role, history. */
export function workflowPage(view: WorkflowView): Html {
  const { payload } = view;
  const edges = graphEdges(payload);
  const old = view.hash !== view.current;
  return page(
    { title: `Workflow ${view.name}`, section: "workflows" },
    html`<nav class="crumbs" aria-label="breadcrumb"><a href="/workflows">Workflows</a> &rsaquo; ${view.name}</nav>
<h1>${view.name} <span class="mono dim">${view.hash}</span></h1>
${!view.registered ? html`<p class="notice">This version is not registered as ${view.name}: a thread runs it that was started from a file, imported, or made by a fan-out.${view.current ? html` <a href="/workflows/${encodeURIComponent(view.name)}">See the registered one</a>.` : ""}</p>` : old ? html`<p class="notice">An earlier version. <a href="/workflows/${encodeURIComponent(view.name)}">See the current one</a>.</p>` : ""}
${payload.description ? html`<p>${payload.description}</p>` : ""}
${triggersSection(payload.on?.github)}
<section aria-labelledby="graph-h"><h2 id="graph-h">Graph</h2><div class="graph-wrap" tabindex="0" aria-label="workflow graph, scrollable">${graphSvg(payload, edges)}</div>
<p class="dim">Hover or focus an edge for its prompt; select it to jump to the list below.</p></section>
<section aria-labelledby="edges-h"><h2 id="edges-h">Edges</h2><div class="table-wrap"><table class="edges"><thead><tr><th scope="col">From</th><th scope="col">$status</th><th scope="col">To</th><th scope="col">Prompt</th></tr></thead><tbody>${edges.map(
      (e) =>
        html`<tr id="${e.id}" tabindex="-1"><td>${e.from}</td><td><span class="badge out">${e.status}</span></td><td>${e.to}${e.fanout ? html` <span class="dim">(join)</span>` : ""}</td><td>${e.fanout ? html`<div class="dim">fan-out: ${fanoutSummary(e.fanout)}</div>` : ""}<pre class="wrap">${e.prompt}</pre>${e.location ? html`<div class="dim">in <span class="mono">${e.location}</span></div>` : ""}</td></tr>`,
    )}</tbody></table></div></section>
<section aria-labelledby="roles-h"><h2 id="roles-h">Roles</h2>${Object.entries(payload.roles).map(
      ([role, def]) =>
        html`<article class="role-card" id="${roleAnchor(role)}" tabindex="-1"><h3>${role}</h3>${def.description ? html`<p>${def.description}</p>` : ""}
<dl class="facts">${def.goal ? html`<dt>Goal</dt><dd>${def.goal}</dd>` : ""}${def.capabilities?.length ? html`<dt>Capabilities</dt><dd>${def.capabilities.join(", ")}</dd>` : ""}${def.procedure ? html`<dt>Procedure</dt><dd class="pre">${def.procedure}</dd>` : ""}${def.output ? html`<dt>Output</dt><dd class="pre">${def.output}</dd>` : ""}</dl>
<details><summary>Output schema</summary><pre>${JSON.stringify(view.schemas[role], null, 2)}</pre></details></article>`,
    )}</section>
${
  view.history.length === 0
    ? ""
    : html`<section aria-labelledby="hist-h"><h2 id="hist-h">Versions</h2><ol class="history">${view.history.map(
        (h) =>
          html`<li>${h.hash === view.hash ? html`<b class="mono">${h.hash}</b> (shown)` : html`<a class="mono" href="/workflows/${encodeURIComponent(view.name)}?version=${h.hash}">${h.hash}</a>`}${h.hash === view.current ? " &middot; current" : ""} &middot; ${when(h.at)}</li>`,
      )}</ol></section>`
}`,
  );
}

/** What starts the workflow (`on.github`), as `uwf workflow show` lists it; nothing when undeclared. */
export function triggersSection(github: GithubTrigger | undefined): Html | "" {
  if (github === undefined) return "";
  const inputs = Object.entries(github.inputs ?? {});
  return html`<section aria-labelledby="on-h"><h2 id="on-h">Started by</h2>
<dl class="facts"><dt>GitHub events</dt><dd>${github.events.map((e) => html`<span class="badge out">${e}</span> `)}</dd>${inputs.length > 0 ? html`<dt>Inputs</dt><dd>${inputs.map(([name, template]) => html`<div><b>${name}</b> <span class="mono">${template}</span></div>`)}</dd>` : ""}<dt>Key</dt><dd>${github.key === undefined ? "the delivery id, else the payload's hash" : html`<span class="mono">${github.key}</span>`}</dd></dl></section>`;
}
