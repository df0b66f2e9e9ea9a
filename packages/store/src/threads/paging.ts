import { ulidTime } from "@united-workforce/util";
import type { ThreadListItem, ThreadQuery } from "../api.js";

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

/** Whether `id` is past `query.after` in the list's order (always, without a cursor). */
export function pastCursor(id: string, query: ThreadQuery): boolean {
  if (query.after === undefined) return true;
  return query.oldestFirst ? id > query.after : id < query.after;
}

/** Whether `item` passes every filter of `query` (offset and limit aside). */
export function matchesQuery(item: ThreadListItem, query: ThreadQuery): boolean {
  if (!pastCursor(item.id, query)) return false;
  if (query.statuses !== undefined && !query.statuses.includes(visibleStatus(item))) return false;
  if (query.workflow !== undefined && item.pointer?.workflow !== query.workflow) return false;
  if (query.start !== undefined && item.pointer?.start !== query.start) return false;
  if (query.title !== undefined) {
    const title = item.pointer?.title;
    if (title === undefined || !title.toLowerCase().includes(query.title.toLowerCase()))
      return false;
  }
  const created = createdAtMs(item);
  if (query.createdAfterMs !== undefined && !(created > query.createdAfterMs)) return false;
  if (query.createdBeforeMs !== undefined && !(created < query.createdBeforeMs)) return false;
  return true;
}
