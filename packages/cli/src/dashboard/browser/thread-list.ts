import { formatCost, setBadge } from "./badge.js";
import type { ThreadStatusRow } from "./events.js";
import { followFeed } from "./feed.js";

/**
 * The thread list: each listed thread's row follows its status; a new thread, or one that now
 * waits for a person, shows a note; one that no longer waits leaves the "waiting" list.
 */
export function followThreadList(): void {
  followFeed("*", { onStatus: onListStatus });
}

function onListStatus(e: ThreadStatusRow): void {
  const tr = document.querySelector(`tr[data-thread="${e.thread}"]`);
  if (tr) updateRow(tr, e);
  else show("new-threads");
  const listed = document.querySelector<HTMLElement>(`li[data-waiting="${e.thread}"]`);
  if (listed) listed.hidden = !e.waitsForAPerson;
  else if (e.waitsForAPerson) show("new-waits");
}

function show(id: string): void {
  const note = document.getElementById(id);
  if (note) note.hidden = false;
}

function updateRow(tr: Element, s: ThreadStatusRow): void {
  setBadge(field(tr, "status"), s.status);
  const role = field(tr, "role");
  if (role) role.textContent = s.currentRole || "—";
  const steps = field(tr, "steps");
  if (steps) steps.textContent = String(s.steps);
  const cost = field(tr, "cost");
  if (cost)
    cost.textContent =
      (s.unknownCostSteps > 0 && s.costUsd !== null ? "≥ " : "") + formatCost(s.costUsd);
  const updated = field(tr, "updated");
  if (updated && s.updatedAt) updated.textContent = s.updatedAt.replace("T", " ").slice(0, 19);
  const waiting = field<HTMLElement>(tr, "waiting");
  if (waiting) {
    waiting.textContent = s.waiting || "";
    waiting.hidden = !s.waiting;
  }
}

function field<E extends Element = Element>(row: Element, name: string): E | null {
  return row.querySelector<E>(`[data-field="${name}"]`);
}
