import type { ThreadTreeDocument, ThreadTreeEntry } from "@united-workforce/protocol";
import { sanitizeTerminalText } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["thread", "tree"],
  summary:
    "show a thread's forks (the threads sharing a prefix with it, and where each forked) and fan-out children",
  description:
    "Every thread whose chain begins at the same start (the thread it was forked from, its forks, their forks), each under the thread that ran the step it was forked at, with that step's number, hash and role. Under each, marked ⇉, the threads its fan-outs made (and theirs), with the item each got.",
  args: [{ name: "thread", type: "thread", description: "thread id (any member of the family)" }],
  examples: ["uwf thread tree 01JD…", "uwf thread tree 01JD… --format json"],
  async run(ctx, [thread]) {
    const { forkTree, withFanoutChildren } = await import("@united-workforce/engine");
    const store = await ctx.store();
    const doc = await forkTree(store, thread!);
    const members = doc.threads.map((t) => t.thread);
    const family = await withFanoutChildren(store, members);
    const children: NonNullable<ThreadTreeDocument["children"]> = [];
    for (const id of family.slice(members.length)) {
      const pointer = await store.threads.get(id);
      if (pointer.parent === undefined) continue;
      children.push({
        thread: id,
        parent: pointer.parent.thread,
        index: pointer.parent.index,
        title: pointer.title ?? null,
        workflow: pointer.workflow,
        status: pointer.status,
        steps: pointer.steps,
      });
    }
    if (children.length > 0) doc.children = children;
    return result(doc, renderTree);
  },
});

export function renderTree(doc: ThreadTreeDocument): string {
  const children = new Map<string | null, ThreadTreeEntry[]>();
  for (const entry of doc.threads) {
    const list = children.get(entry.parent) ?? [];
    list.push(entry);
    children.set(entry.parent, list);
  }
  for (const list of children.values())
    list.sort((a, b) => (a.forkStep ?? 0) - (b.forkStep ?? 0) || (a.thread < b.thread ? -1 : 1));
  const made = new Map<string, NonNullable<ThreadTreeDocument["children"]>>();
  for (const child of doc.children ?? []) {
    const list = made.get(child.parent) ?? [];
    list.push(child);
    made.set(child.parent, list);
  }
  for (const list of made.values()) list.sort((a, b) => a.index - b.index);
  const lines: string[] = [];
  const drawMade = (parent: string, lead: string, last: boolean) => {
    const kids = made.get(parent) ?? [];
    for (const [i, kid] of kids.entries()) {
      const end = last && i === kids.length - 1;
      const steps = `${kid.steps} step${kid.steps === 1 ? "" : "s"}`;
      lines.push(
        `${lead}${end ? "└⇉ " : "├⇉ "}item ${kid.index}: ${kid.thread}  ${kid.status}  ${steps}  ${kid.workflow}${titled(kid.title)}`,
      );
      drawMade(kid.thread, lead + (end ? "   " : "│  "), true);
    }
  };
  const draw = (entry: ThreadTreeEntry, lead: string, branch: string) => {
    lines.push(`${lead}${branch}${describe(entry, doc.thread)}`);
    const kids = children.get(entry.thread) ?? [];
    const next = lead + (branch === "" ? "" : branch === "└─ " ? "   " : "│  ");
    drawMade(entry.thread, next, kids.length === 0);
    for (const [i, kid] of kids.entries()) {
      draw(kid, next, i === kids.length - 1 ? "└─ " : "├─ ");
    }
  };
  for (const root of children.get(null) ?? []) draw(root, "", "");
  return lines.join("\n");
}

function describe(entry: ThreadTreeEntry, asked: string): string {
  const step =
    entry.forkStep === null
      ? `${entry.forkedFrom}`
      : `step ${entry.forkStep} ${entry.forkedFrom} (${entry.forkRole})`;
  const gone = entry.parent === null ? ", from a thread no longer here" : "";
  const where = entry.forkedFrom === null ? "" : `forked at ${step}${gone}: `;
  const steps = `${entry.steps} step${entry.steps === 1 ? "" : "s"}`;
  const mark = entry.thread === asked ? "  ← this thread" : "";
  return `${where}${entry.thread}  ${entry.status}  ${steps}  head ${entry.head}${titled(entry.title)}${mark}`;
}

/** A thread's title after its figures, quoted so it reads as a name. */
function titled(title: string | null): string {
  return title === null ? "" : `  “${sanitizeTerminalText(title)}”`;
}
