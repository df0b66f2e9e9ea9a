import { ulidTime } from "@united-workforce/util";
import type { ThreadListItem, ThreadPage, ThreadQuery } from "../api.js";

/** What a user sees of a thread: its stored status, or `running` / `corrupt`. */
export function visibleStatus(item: ThreadListItem): string {
  if (item.pointer === null) return "corrupt";
  if (item.running) return "running";
  return item.pointer.status;
}

/**
 * When a thread was created: from its pointer, or from its id (a ULID) when the pointer cannot
 * be read, so time filters still place a corrupt thread.
 */
export function createdAtMs(item: ThreadListItem): number {
  return item.pointer ? Date.parse(item.pointer.createdAt) : ulidTime(item.id);
}

/** Filter items (already newest first) and cut one page; `total` counts every match. */
export function pageThreads(items: readonly ThreadListItem[], query: ThreadQuery): ThreadPage {
  const statuses = query.statuses ? new Set(query.statuses) : null;
  const title = query.title?.toLowerCase();
  const matches = items.filter((item) => {
    if (statuses !== null && !statuses.has(visibleStatus(item))) return false;
    if (query.workflow !== undefined && item.pointer?.workflow !== query.workflow) return false;
    if (query.start !== undefined && item.pointer?.start !== query.start) return false;
    if (title !== undefined && !item.pointer?.title?.toLowerCase().includes(title)) return false;
    const created = createdAtMs(item);
    if (query.createdAfterMs !== undefined && !(created > query.createdAfterMs)) return false;
    if (query.createdBeforeMs !== undefined && !(created < query.createdBeforeMs)) return false;
    return true;
  });
  const offset = query.offset ?? 0;
  const end = query.limit === undefined ? undefined : offset + query.limit;
  return { items: matches.slice(offset, end), total: matches.length };
}
