import type { ThreadEvent } from "@united-workforce/protocol";
import { guardAnswerForms } from "./answer-form.js";
import { setBadge } from "./badge.js";
import type { ThreadStatusRow } from "./events.js";
import { followFeed } from "./feed.js";

/** The status and step count last seen: a change of either refreshes the page. */
let lastStatus: string | null = null;
let lastSteps: number | null = null;
let refreshing = false;

/**
 * A thread's page: a running step's role and output appear live in the "Running now" box, and
 * the page is refreshed in place when the thread's status or step count changes.
 */
export function followThreadPage(thread: string): void {
  const initial = document.querySelector("h1 [data-field=status]");
  if (initial) lastStatus = initial.textContent;
  lastSteps = document.querySelectorAll("#timeline > li").length;
  followFeed(thread, {
    onEvent: onThreadEvent,
    onStatus: onThreadStatus,
    onOpen: () => {
      // What happened between rendering the page and (re)connecting is not in the feed.
      fetch(`/api/threads/${thread}/status`, { credentials: "same-origin" })
        .then((r) => (r.ok ? r.json() : null))
        .then((row: ThreadStatusRow | null) => {
          if (row) onThreadStatus(row);
        });
    },
  });
}

function onThreadEvent(e: ThreadEvent): void {
  const box = document.getElementById("live");
  const out = document.getElementById("live-output");
  const role = document.getElementById("live-role");
  if (e.event === "step.start" && box) {
    box.hidden = false;
    document.getElementById("live-h")!.textContent = "Running now";
    const name = document.createElement("b");
    name.textContent = e.role;
    const since = document.createElement("span");
    since.className = "elapsed";
    since.dataset.since = e.ts;
    since.textContent = `started ${e.ts.slice(11, 19)}`;
    role!.replaceChildren(`Step ${e.stepNumber}: `, name, ` by ${e.agent} · `, since);
    out!.textContent += `${out!.textContent ? "\n" : ""}▶ ${e.role}`;
  } else if (e.event === "adapter.output" && out) {
    if (box) box.hidden = false;
    let lines = `${out.textContent}\n${e.line}`.split("\n");
    if (lines.length > 400) lines = lines.slice(-400);
    out.textContent = lines.join("\n").replace(/^\n/, "");
    out.scrollTop = out.scrollHeight;
  } else if ((e.event === "step.done" || e.event === "step.failed") && out) {
    out.textContent += `\n${e.event === "step.done" ? `✓ ${e.role} → ${e.status} (${e.durationMs} ms)` : `✗ ${e.role}: ${e.reason}`}`;
    out.scrollTop = out.scrollHeight;
  }
}

function onThreadStatus(row: ThreadStatusRow): void {
  setBadge(document.querySelector("h1 [data-field=status]"), row.status);
  const changed =
    (lastStatus !== null && lastStatus !== row.status) ||
    (lastSteps !== null && lastSteps !== row.steps);
  lastStatus = row.status;
  lastSteps = row.steps;
  if (changed) refreshThreadPage();
}

/**
 * Replace the page's main part with a fresh copy, keeping the live box's text (the output is not
 * in the page). Not while an answer is being typed: it would be lost.
 */
function refreshThreadPage(): void {
  if (refreshing) return;
  const active = document.activeElement;
  const typing =
    (active instanceof HTMLTextAreaElement || active instanceof HTMLInputElement) &&
    active.closest("form.answer") !== null &&
    active.value !== "";
  if (typing) return;
  refreshing = true;
  // With the query: the page's notice ("Your answer was sent") must survive the refresh.
  fetch(location.pathname + location.search, { credentials: "same-origin" })
    .then((r) => (r.ok ? r.text() : null))
    .then((text) => {
      if (!text) return;
      const doc = new DOMParser().parseFromString(text, "text/html");
      const fresh = doc.querySelector("main");
      const main = document.querySelector("main");
      if (!fresh || !main) return;
      const kept = document.getElementById("live-output")?.textContent ?? "";
      const keptRole = [...(document.getElementById("live-role")?.childNodes ?? [])];
      main.innerHTML = fresh.innerHTML;
      const liveBox = document.getElementById("live");
      if (kept && liveBox) {
        liveBox.hidden = false;
        document.getElementById("live-output")!.textContent = kept;
        const running = lastStatus === "running";
        document.getElementById("live-h")!.textContent = running ? "Running now" : "Last run";
        const role = document.getElementById("live-role")!;
        // The server's line (role, agent, since when) when it has one; else the last one seen.
        if (!role.textContent) role.replaceChildren(...keptRole);
        // A run that ended stops counting: its line says when it started.
        if (!running)
          for (const el of role.querySelectorAll<HTMLElement>("[data-since]")) {
            el.textContent = `started ${(el.dataset.since ?? "").slice(11, 19)}`;
            el.removeAttribute("data-since");
          }
      }
      guardAnswerForms();
    })
    .finally(() => {
      refreshing = false;
    });
}
