import { readdirSync } from "node:fs";
import { join } from "node:path";
import {
  THREAD_STATUSES,
  type ThreadListDocument,
  type ThreadListEntry,
} from "@united-workforce/protocol";
import { readLock, threadLockPath } from "@united-workforce/store";
import { ulidTime } from "@united-workforce/util";
import { deriveStatus } from "../../threads/thread-view.js";
import { defineCommand, result } from "../command.js";
import { openEngine } from "./shared.js";

const STATUS_FILTERS = [...THREAD_STATUSES, "active", "all"] as const;
/** `active`: anything that may still run or wait for someone. */
const ACTIVE = new Set(["idle", "running", "suspended"]);

export default defineCommand({
  path: ["thread", "list"],
  summary: "list threads, newest first (suspended ones included)",
  options: [
    {
      flags: "--status <status>",
      type: "enum",
      description: "only threads in this status (active: idle, running or suspended)",
      choices: STATUS_FILTERS,
      default: "all",
    },
    { flags: "--workflow <name>", type: "string", description: "only threads of this workflow" },
    { flags: "--after <time>", type: "time", description: "created after this time" },
    { flags: "--before <time>", type: "time", description: "created before this time" },
    { flags: "--limit <n>", type: "integer", min: 0, description: "show at most n", default: "50" },
    {
      flags: "--offset <n>",
      type: "integer",
      min: 0,
      description: "skip the first n",
      default: "0",
    },
  ],
  examples: [
    "uwf thread list --status active",
    "uwf thread list --workflow solve-issue --after 7d",
  ],
  async run(ctx, _args, options) {
    const after = options.after ?? null;
    const before = options.before ?? null;
    const limit = options.limit;
    const offset = options.offset;
    const status = options.status;
    const workflow = options.workflow as string | undefined;

    const running = liveHolders(ctx.home);
    const entries: ThreadListEntry[] = [];
    for (const { id, pointer, problem } of openEngine(ctx).threads.list()) {
      const entry: ThreadListEntry = pointer
        ? {
            thread: pointer.thread,
            workflow: pointer.workflow,
            status: deriveStatus(pointer, running.has(id) ? { pid: 0, since: "" } : null),
            currentRole: pointer.currentRole,
            createdAt: pointer.createdAt,
            updatedAt: pointer.updatedAt,
            steps: pointer.steps,
          }
        : {
            thread: id,
            workflow: "?",
            status: "corrupt",
            currentRole: null,
            // The id is a ULID: it still tells when the thread was made, so time filters work.
            createdAt: new Date(ulidTime(id)).toISOString(),
            updatedAt: "",
            steps: 0,
            problem: oneLine(problem ?? "unreadable"),
          };
      if (workflow !== undefined && entry.workflow !== workflow) continue;
      if (
        status === "active"
          ? !ACTIVE.has(entry.status)
          : status !== "all" && entry.status !== status
      )
        continue;
      const created = Date.parse(entry.createdAt);
      if (after !== null && !(created > after)) continue;
      if (before !== null && !(created < before)) continue;
      entries.push(entry);
    }
    // Thread ids are ULIDs: sorting them sorts by creation time.
    entries.sort((a, b) => (a.thread < b.thread ? 1 : a.thread > b.thread ? -1 : 0));
    const doc: ThreadListDocument = {
      threads: entries.slice(offset, offset + limit),
      total: entries.length,
    };
    return result(doc, renderList);
  },
});

/** Threads whose lock a live process holds; reads only the lock files that exist. */
function liveHolders(home: string): Set<string> {
  const live = new Set<string>();
  let names: string[];
  try {
    names = readdirSync(join(home, "locks"));
  } catch {
    return live;
  }
  for (const name of names) {
    if (!name.endsWith(".lock")) continue;
    const id = name.slice(0, -5);
    try {
      if (readLock(threadLockPath(home, id))?.alive) live.add(id);
    } catch {
      // A lock file that is not a thread's is not a running thread.
    }
  }
  return live;
}

function renderList(d: ThreadListDocument): string {
  if (d.threads.length === 0)
    return d.total === 0 ? "no threads" : `no threads on this page (${d.total} in all)`;
  const lines = d.threads.map((t) =>
    [
      t.thread,
      t.status.padEnd(9),
      t.workflow,
      t.currentRole ?? "—",
      `${t.steps} steps`,
      t.updatedAt,
      t.problem ?? "",
    ]
      .join("  ")
      .trimEnd(),
  );
  if (d.total > d.threads.length)
    lines.push(`(${d.threads.length} of ${d.total}; use --limit/--offset for more)`);
  return lines.join("\n");
}

/** A problem is shown in one row of the listing, so its line breaks must not split it. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
