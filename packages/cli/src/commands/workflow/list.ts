import type { WorkflowListDocument } from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["workflow", "list"],
  summary: "list registered workflows",
  async run(ctx) {
    const { Registry } = await import("@united-workforce/store");
    const entries = new Registry(ctx.home).list();
    const doc: WorkflowListDocument = {
      workflows: entries.map((e) => ({
        name: e.name,
        hash: e.current,
        updatedAt: e.history[0]?.at ?? "",
        versions: e.history.length,
      })),
    };
    return result(doc, (d) =>
      d.workflows.length === 0
        ? "no workflows registered; add one with `uwf workflow add <file>`"
        : d.workflows
            .map(
              (w) =>
                `${w.name}  ${w.hash}  ${w.versions} version${w.versions === 1 ? "" : "s"}  ${w.updatedAt}`,
            )
            .join("\n"),
    );
  },
});
