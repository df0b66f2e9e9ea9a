import type { Runner } from "@united-workforce/engine";
import { THREAD_STATUSES, type ThreadStatus } from "@united-workforce/protocol";
import type { ThreadListItem, ThreadQuery } from "@united-workforce/store";
import { threadListEntry } from "../../commands/thread/list-entry.js";
import { readPointer } from "./ids.js";

// The threads list: its rows, filtered and paged, and one row's live status.

export const STATUS_FILTERS = ["all", "active", ...THREAD_STATUSES] as const;
const ACTIVE = ["idle", "running", "suspended"];
export const PAGE_SIZE = 50;

export interface ThreadRow {
  thread: string;
  workflow: string;
  status: ThreadStatus;
  currentRole: string | null;
  steps: number;
  createdAt: string;
  updatedAt: string;
  /** The question of a suspended thread, or why it failed. */
  waiting: string | null;
  costUsd: number | null;
  /** Steps that reported no cost: with any, `costUsd` is a lower bound. */
  unknownCostSteps: number;
  problem: string | null;
}

export interface ThreadFilter {
  status: (typeof STATUS_FILTERS)[number];
  workflow: string;
  /** Words every shown thread contains (id, workflow, role, question). */
  text: string;
  offset: number;
}

export function parseFilter(params: URLSearchParams): ThreadFilter {
  const status = params.get("status") ?? "all";
  const offset = Number(params.get("offset") ?? "0");
  return {
    status: (STATUS_FILTERS as readonly string[]).includes(status)
      ? (status as ThreadFilter["status"])
      : "all",
    workflow: (params.get("workflow") ?? "").trim(),
    text: (params.get("q") ?? "").trim(),
    offset: Number.isSafeInteger(offset) && offset > 0 ? offset : 0,
  };
}

export async function listThreads(
  runner: Runner,
  filter: ThreadFilter,
): Promise<{ rows: ThreadRow[]; total: number }> {
  const query: ThreadQuery = {};
  if (filter.status === "active") query.statuses = ACTIVE;
  else if (filter.status !== "all") query.statuses = [filter.status];
  if (filter.workflow !== "") query.workflow = filter.workflow;
  if (filter.text === "") {
    const page = await runner.store.threads.list({
      ...query,
      limit: PAGE_SIZE,
      offset: filter.offset,
    });
    return { rows: page.items.map(toRow), total: page.total };
  }
  // The store filters by fields; words are matched here, over every thread the fields keep.
  const words = filter.text.toLowerCase().split(/\s+/);
  const all = (await runner.store.threads.list(query)).items.map(toRow);
  const kept = all.filter((row) => {
    const haystack = [
      row.thread,
      row.workflow,
      row.currentRole ?? "",
      row.waiting ?? "",
      row.status,
    ]
      .join(" ")
      .toLowerCase();
    return words.every((w) => haystack.includes(w));
  });
  return { rows: kept.slice(filter.offset, filter.offset + PAGE_SIZE), total: kept.length };
}

export function toRow(item: ThreadListItem): ThreadRow {
  const { pointer } = item;
  const entry = threadListEntry(item);
  return {
    thread: entry.thread,
    workflow: entry.workflow,
    status: entry.status,
    currentRole: entry.currentRole,
    steps: entry.steps,
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
    waiting: pointer?.status === "suspended" ? (pointer.suspended?.reason ?? null) : null,
    costUsd: pointer?.usage?.costUsd ?? null,
    unknownCostSteps: pointer?.unknownCostSteps ?? 0,
    problem: entry.problem ?? null,
  };
}

/** One thread's live status, as the list and the thread page refresh it. */
export async function threadStatus(runner: Runner, id: string): Promise<ThreadRow> {
  const { liveHolder } = await import("@united-workforce/engine");
  const pointer = await readPointer(runner, id);
  const holder = await liveHolder(runner.store, id);
  return toRow({ id, pointer, problem: null, running: holder !== null });
}
