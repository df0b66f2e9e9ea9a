import type { WorkflowHistoryDocument } from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["workflow", "rollback"],
  summary: "point a workflow name back at an earlier version (default: the previous one)",
  description:
    "Without --to, the previous version is the one current before this one, so a second rollback returns to the version the first left (each rollback is recorded in the history, as `helm rollback` does); pass --to <hash> to go further back. Threads already running keep the version they started with.",
  args: [{ name: "name", description: "registered workflow name" }],
  options: [
    {
      flags: "--to <hash>",
      type: "hash",
      description: "the version to restore (from `uwf workflow history`)",
    },
  ],
  async run(ctx, [name], options) {
    const entry = await (await ctx.store()).registry.rollback(
      name!,
      options.to as string | undefined,
    );
    ctx.events.emit("workflow.rollback", { workflow: entry.name, hash: entry.current });
    const doc: WorkflowHistoryDocument = {
      name: entry.name,
      current: entry.current,
      history: entry.history,
    };
    return result(doc, (d) => `${d.name} now points at ${d.current}`);
  },
});
