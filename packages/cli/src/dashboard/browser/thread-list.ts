import { formatCost, setBadge } from "./badge.js";
import type { ThreadStatusRow } from "./events.js";
import { followFeed } from "./feed.js";

/** The thread list: each listed thread's row follows its status; a new thread shows a note. */
export function followThreadList(): void {
  followFeed("*", { onStatus: onListStatus });
}

function onListStatus(e: ThreadStatusRow): void {
  const tr = document.querySelector(`tr[data-thread="${e.thread}"]`);
  if (tr) updateRow(tr, e);
  else {
    const note = document.getElementById("new-threads");
    if (note) note.hidden = false;
  }
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
