import type { Runner } from "@united-workforce/engine";
import { type SuspendKind, THREAD_STATUSES, type ThreadStatus } from "@united-workforce/protocol";
import type { ThreadListItem, ThreadQuery } from "@united-workforce/store";
import { threadListEntry } from "../../commands/thread/list-entry.js";
import { readPointer } from "./ids.js";
import { NEEDS_A_PERSON } from "./wait.js";

// The threads list: its rows, filtered and paged, and one row's live status.

export const STATUS_FILTERS = ["all", "active", ...THREAD_STATUSES] as const;
const ACTIVE = ["idle", "running", "suspended"];
export const PAGE_SIZE = 50;

export interface ThreadRow {
  thread: string;
  /** Its name (`thread start --title`, or the task's first line); null for older threads. */
  title: string | null;
  workflow: string;
  /** The workflow version it is pinned to (null for an unreadable pointer). */
  workflowHash: string | null;
  status: ThreadStatus;
  currentRole: string | null;
  steps: number;
  createdAt: string;
  updatedAt: string;
  /** The question of a suspended thread, or why it failed. */
  waiting: string | null;
  /** What a suspended thread waits for. */
  waitKind: SuspendKind | null;
  /** Suspended on what only a person moves on (a question, a human role, a failure, a budget, a guard). */
  waitsForAPerson: boolean;
  costUsd: number | null;
  /** Steps that reported no cost: with any, `costUsd` is a lower bound. */
  unknownCostSteps: number;
  problem: string | null;
}

export interface ThreadFilter {
  status: (typeof STATUS_FILTERS)[number];
  workflow: string;
  /** Words every shown thread contains (id, title, workflow, role, question). */
  text: string;
  /** Words every shown thread's title contains. */
  title: string;
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
    title: (params.get("title") ?? "").trim(),
    offset: Number.isSafeInteger(offset) && offset > 0 ? offset : 0,
  };
}

/** Threads read a store page at a time while words are matched here. */
const WORDS_BATCH = 200;

/** One page of the list (newest first) and whether more threads match after it. */
export async function listThreads(
  runner: Runner,
  filter: ThreadFilter,
): Promise<{ rows: ThreadRow[]; more: boolean }> {
  const query: ThreadQuery = {};
  if (filter.status === "active") query.statuses = ACTIVE;
  else if (filter.status !== "all") query.statuses = [filter.status];
  if (filter.workflow !== "") query.workflow = filter.workflow;
  if (filter.text === "" && filter.title === "") {
    const page = await runner.store.threads.list({
      ...query,
      limit: PAGE_SIZE,
      offset: filter.offset,
    });
    return { rows: page.items.map(toRow), more: page.more };
  }
  // The store filters by fields; words are matched here, store page by store page, until this
  // page and one more match are found (or the threads run out).
  const kept: ThreadRow[] = [];
  const wanted = filter.offset + PAGE_SIZE + 1;
  for (let offset = 0; kept.length < wanted; offset += WORDS_BATCH) {
    const page = await runner.store.threads.list({ ...query, limit: WORDS_BATCH, offset });
    for (const row of page.items.map(toRow)) if (matches(row, filter)) kept.push(row);
    if (!page.more) break;
  }
  return {
    rows: kept.slice(filter.offset, filter.offset + PAGE_SIZE),
    more: kept.length > filter.offset + PAGE_SIZE,
  };
}

function matches(row: ThreadRow, filter: ThreadFilter): boolean {
  const has = (text: string, words: string) =>
    words === "" ||
    words
      .toLowerCase()
      .split(/\s+/)
      .every((w) => text.toLowerCase().includes(w));
  const haystack = [
    row.thread,
    row.title ?? "",
    row.workflow,
    row.currentRole ?? "",
    row.waiting ?? "",
    row.status,
  ].join(" ");
  return has(haystack, filter.text) && has(row.title ?? "", filter.title);
}

/** The threads waiting for a person (from the `WaitingIndex`) that the filter keeps. */
export function waitingForAPerson(
  waiting: readonly ThreadRow[],
  filter: ThreadFilter,
): ThreadRow[] {
  if (!["all", "active", "suspended"].includes(filter.status)) return [];
  return waiting.filter(
    (row) => (filter.workflow === "" || row.workflow === filter.workflow) && matches(row, filter),
  );
}

export function toRow(item: ThreadListItem): ThreadRow {
  const { pointer } = item;
  const entry = threadListEntry(item);
  const waitKind = pointer?.status === "suspended" ? (pointer.suspended?.kind ?? null) : null;
  return {
    thread: entry.thread,
    title: pointer?.title ?? null,
    workflow: entry.workflow,
    workflowHash: pointer?.workflowHash ?? null,
    status: entry.status,
    currentRole: entry.currentRole,
    steps: entry.steps,
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
    waiting: pointer?.status === "suspended" ? (pointer.suspended?.reason ?? null) : null,
    waitKind,
    waitsForAPerson:
      entry.status === "suspended" && waitKind !== null && NEEDS_A_PERSON.has(waitKind),
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
