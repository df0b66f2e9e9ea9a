import { defineCommand, result } from "../command.js";
import { openRunner } from "./shared.js";

export default defineCommand({
  path: ["thread", "cancel"],
  summary: "stop any running exec and archive the thread as cancelled",
  description:
    "The unfinished children of a fan-out the thread waits on are cancelled with it; children that completed stay as they are.",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  options: [
    {
      flags: "--keep-worktree",
      type: "boolean",
      description:
        "keep the thread's git worktree and branch (by default a worktree without uncommitted changes is removed, and its branch too when it holds no commits)",
    },
  ],
  examples: [
    "uwf thread cancel 01JB7ZQ0000000000000000000",
    "uwf thread cancel <thread> --keep-worktree",
  ],
  async run(ctx, [thread], options) {
    const runner = await openRunner(ctx);
    const doc = await runner.cancel(thread!, { keepWorktree: options.keepWorktree === true });
    return result(doc, (d) =>
      [
        `${d.thread}: cancelled`,
        ...(d.children === undefined
          ? []
          : [`cancelled with it: ${d.children.length} unfinished fan-out children`]),
        ...(d.worktree === undefined ? [] : [d.worktree.note]),
        ...(d.childWorktrees ?? []).map((w) => w.note),
      ].join("\n"),
    );
  },
});
