import type { ThreadTreeDocument, ThreadTreeEntry } from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["thread", "tree"],
  summary: "show a thread's forks: the threads sharing a prefix with it, and where each forked",
  description:
    "Every thread whose chain begins at the same start (the thread it was forked from, its forks, their forks), each under the thread that ran the step it was forked at, with that step's number, hash and role.",
  args: [{ name: "thread", type: "thread", description: "thread id (any member of the family)" }],
  examples: ["uwf thread tree 01JD…", "uwf thread tree 01JD… --format json"],
  async run(ctx, [thread]) {
    const { forkTree } = await import("@united-workforce/engine");
    const doc = await forkTree(await ctx.store(), thread!);
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
  const lines: string[] = [];
  const draw = (entry: ThreadTreeEntry, lead: string, branch: string) => {
    lines.push(`${lead}${branch}${describe(entry, doc.thread)}`);
    const kids = children.get(entry.thread) ?? [];
    const next = lead + (branch === "" ? "" : branch === "└─ " ? "   " : "│  ");
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
  return `${where}${entry.thread}  ${entry.status}  ${steps}  head ${entry.head}${mark}`;
}
