import type { WorkflowRemoveDocument } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["workflow", "rm"],
  summary: "remove a name from the registry (stored versions stay until `uwf cas gc`)",
  args: [{ name: "name", description: "registered workflow name" }],
  async run(ctx, [name]) {
    const removed = await (await ctx.store()).registry.remove(name!);
    if (!removed) {
      throw new UwfError("WORKFLOW_NOT_FOUND", `no workflow named "${name}" is registered`, {
        hint: "See the registered ones with `uwf workflow list`.",
      });
    }
    ctx.events.emit("workflow.rm", { workflow: name! });
    const doc: WorkflowRemoveDocument = { name: name!, removed };
    return result(doc, (d) => `removed ${d.name}`);
  },
});
