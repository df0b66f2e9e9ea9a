import type { ThreadListEntry } from "@united-workforce/protocol";
import type { ThreadListItem } from "@united-workforce/store";
import { isoTime, ulidTime } from "@united-workforce/util";

/** A thread as `thread list` (and the dashboard's list) shows it; an unreadable one as corrupt. */
export function threadListEntry(item: ThreadListItem): ThreadListEntry {
  const { id, pointer, problem } = item;
  if (pointer === null) {
    return {
      thread: id,
      title: null,
      workflow: "?",
      status: "corrupt",
      currentRole: null,
      // The id is a ULID: it still tells when the thread was made.
      createdAt: isoTime(ulidTime(id)),
      updatedAt: "",
      steps: 0,
      problem: oneLine(problem ?? "unreadable"),
    };
  }
  const entry: ThreadListEntry = {
    thread: pointer.thread,
    title: pointer.title ?? null,
    workflow: pointer.workflow,
    status: item.running ? "running" : pointer.status,
    currentRole: pointer.currentRole,
    createdAt: pointer.createdAt,
    updatedAt: pointer.updatedAt,
    steps: pointer.steps,
  };
  if (pointer.parent !== undefined) entry.parent = pointer.parent.thread;
  return entry;
}

/** A problem is shown in one row of the listing, so its line breaks must not split it. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
