import { defineCommand, result } from "../command.js";
import { openRunner } from "./shared.js";

export default defineCommand({
  path: ["thread", "cleanup"],
  summary:
    "remove the git worktree of a completed or cancelled thread (and its fan-out children's)",
  description:
    "Removes the thread's worktree unless it holds uncommitted changes (then it is kept, and the message says how to finish by hand). Its branch uwf/<thread> is removed too when it holds no commits, and kept when it does: it is the thread's work. The worktrees of its fan-out children (and theirs) that have ended go by the same rules; those of children still running or waiting stay. `uwf thread cancel` does the same for a thread that has not ended.",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  examples: ["uwf thread cleanup <thread>"],
  async run(ctx, [thread]) {
    const runner = await openRunner(ctx);
    const doc = await runner.cleanup(thread!);
    return result(doc, (d) =>
      [
        ...(d.worktree === undefined ? [] : [d.worktree.note]),
        ...(d.children ?? []).map((c) => `${c.thread}: ${c.worktree.note}`),
      ].join("\n"),
    );
  },
});
