import type { WorkflowHistoryDocument } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import { relativeTime, renderTable } from "../../output/table.js";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["workflow", "history"],
  summary: "list a registered workflow's versions, newest first",
  args: [{ name: "name", description: "registered workflow name" }],
  async run(ctx, [name]) {
    const entry = await (await ctx.store()).registry.get(name!);
    if (!entry) {
      throw new UwfError("WORKFLOW_NOT_FOUND", `no workflow named "${name}" is registered`, {
        hint: "See the registered ones with `uwf workflow list`.",
      });
    }
    const doc: WorkflowHistoryDocument = {
      name: entry.name,
      current: entry.current,
      history: entry.history,
    };
    return result(doc, (d, view) =>
      view.tty
        ? renderTable(
            [{ header: "hash" }, { header: "added" }, { header: "" }],
            d.history.map((h, i) => [
              h.hash,
              relativeTime(h.at, view.now),
              i === 0 ? "current" : "",
            ]),
          )
        : d.history.map((h, i) => `${h.hash}  ${h.at}${i === 0 ? "  (current)" : ""}`).join("\n"),
    );
  },
});
