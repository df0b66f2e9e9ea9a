import { THREAD_STATUSES, type ThreadListDocument } from "@united-workforce/protocol";
import type { ThreadQuery } from "@united-workforce/store";
import { groupDigits, sanitizeTerminalText } from "@united-workforce/util";
import {
  type Column,
  cutToWidth,
  relativeTime,
  renderTable,
  type TextView,
} from "../../output/table.js";
import { defineCommand, result } from "../command.js";
import { threadListEntry } from "./list-entry.js";

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
    {
      flags: "--title <text>",
      type: "string",
      description: "only threads whose title holds this text (in any case)",
    },
    { flags: "--after <time>", type: "time", description: "created after this time" },
    { flags: "--before <time>", type: "time", description: "created before this time" },
    { flags: "--limit <n>", type: "integer", min: 0, description: "show at most n", default: "50" },
    {
      flags: "--hide-children",
      type: "boolean",
      description:
        "leave out the threads fan-outs made (listed by default, marked with their parent); reads every thread",
    },
    {
      flags: "--offset <n>",
      type: "integer",
      min: 0,
      description: "skip the first n",
      default: "0",
    },
    {
      flags: "--count",
      type: "boolean",
      description:
        "also count every match (`total`, which a last page has anyway); passes over every thread the filters keep",
    },
  ],
  examples: [
    "uwf thread list --status active",
    "uwf thread list --workflow solve-issue --after 7d",
    'uwf thread list --title "login"',
    "uwf thread list --hide-children",
  ],
  async run(ctx, _args, options) {
    const after = options.after ?? null;
    const before = options.before ?? null;
    const limit = options.limit;
    const offset = options.offset;
    const status = options.status;
    const workflow = options.workflow as string | undefined;

    // Children are left out after the store's filters, so the page is cut here.
    const noChildren = options.hideChildren === true;
    const query: ThreadQuery = noChildren ? {} : { limit, offset };
    if (options.count === true) query.count = true;
    if (status === "active") query.statuses = [...ACTIVE];
    else if (status !== "all") query.statuses = [status];
    if (workflow !== undefined) query.workflow = workflow;
    if (options.title !== undefined) query.title = options.title as string;
    if (after !== null) query.createdAfterMs = after;
    if (before !== null) query.createdBeforeMs = before;
    const page = await (await ctx.store()).threads.list(query);
    let entries = page.items.map(threadListEntry);
    if (noChildren) {
      const kept = entries.filter((entry) => entry.parent === undefined);
      entries = kept.slice(offset, offset + limit);
      const doc: ThreadListDocument = {
        threads: entries,
        more: offset + limit < kept.length,
        total: kept.length,
      };
      return result(doc, renderList);
    }
    const doc: ThreadListDocument = { threads: entries, more: page.more };
    // The total comes free on a last page; on any other only from a count (--count).
    const lastPage = !page.more && (offset === 0 || entries.length > 0);
    const total = page.total ?? (lastPage ? offset + entries.length : undefined);
    if (total !== undefined) doc.total = total;
    return result(doc, renderList);
  },
});

/** A table's title column is cut to this many cells; `--format json` has the whole title. */
const TITLE_CELLS = 40;

function renderList(d: ThreadListDocument, view: TextView): string {
  if (d.threads.length === 0) {
    if (d.total !== undefined && d.total > 0) return `no threads on this page (${d.total} in all)`;
    return d.more ? "no threads on this page" : "no threads";
  }
  const more = !d.more
    ? []
    : d.total === undefined
      ? [`(${d.threads.length} shown, more match; use --limit/--offset for more)`]
      : [`(${d.threads.length} of ${d.total}; use --limit/--offset for more)`];
  if (view.tty) {
    const problems = d.threads.some((t) => t.problem !== undefined);
    const children = d.threads.some((t) => t.parent !== undefined);
    const columns: Column[] = [
      { header: "thread" },
      { header: "title" },
      { header: "status" },
      { header: "workflow" },
      { header: "role" },
      { header: "steps", align: "right" },
      { header: "updated" },
      ...(children ? [{ header: "fan-out of" }] : []),
      ...(problems ? [{ header: "problem" }] : []),
    ];
    const rows = d.threads.map((t) => [
      t.thread,
      t.title === null ? "—" : cutToWidth(sanitizeTerminalText(t.title), TITLE_CELLS),
      t.status,
      t.workflow,
      t.currentRole ?? "—",
      groupDigits(t.steps),
      relativeTime(t.updatedAt || t.createdAt, view.now),
      ...(children ? [t.parent ?? ""] : []),
      ...(problems ? [t.problem ?? ""] : []),
    ]);
    return [renderTable(columns, rows), ...more].join("\n");
  }
  const lines = d.threads.map((t) =>
    [
      t.thread,
      t.status.padEnd(9),
      t.workflow,
      t.currentRole ?? "—",
      `${t.steps} step${t.steps === 1 ? "" : "s"}`,
      t.updatedAt,
      t.parent === undefined ? "" : `fan-out of ${t.parent}`,
      t.problem ?? "",
      t.title === null ? "" : `“${sanitizeTerminalText(t.title)}”`,
    ]
      .filter((field) => field !== "")
      .join("  "),
  );
  return [...lines, ...more].join("\n");
}
