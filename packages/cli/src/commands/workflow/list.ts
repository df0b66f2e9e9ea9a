import type { WorkflowListDocument } from "@united-workforce/protocol";
import { shellQuote } from "@united-workforce/util";
import { relativeTime, renderTable } from "../../output/table.js";
import { defineCommand, result } from "../command.js";

/** Registry files that could not be read are listed by name, never silently left out. */
type ListDocument = WorkflowListDocument;

export default defineCommand({
  path: ["workflow", "list"],
  summary: "list registered workflows",
  async run(ctx) {
    const { entries, problems } = await (await ctx.store()).registry.scan();
    const doc: ListDocument = {
      workflows: entries.map((e) => ({
        name: e.name,
        hash: e.current,
        updatedAt: e.history[0]?.at ?? "",
        versions: e.history.length,
      })),
      problems: problems.map((p) => ({ name: p.name, file: p.location, problem: p.problem })),
    };
    return result(doc, (d, view) =>
      [
        ...(d.workflows.length === 0 && d.problems.length === 0
          ? ["no workflows registered; add one with `uwf workflow add <file>`"]
          : view.tty && d.workflows.length > 0
            ? [
                renderTable(
                  [
                    { header: "name" },
                    { header: "hash" },
                    { header: "versions", align: "right" },
                    { header: "updated" },
                  ],
                  d.workflows.map((w) => [
                    w.name,
                    w.hash,
                    String(w.versions),
                    relativeTime(w.updatedAt, view.now),
                  ]),
                ),
              ]
            : d.workflows.map(
                (w) =>
                  `${w.name}  ${w.hash}  ${w.versions} version${w.versions === 1 ? "" : "s"}  ${w.updatedAt}`,
              )),
        ...d.problems.map(
          (p) =>
            `warning: ${p.name} cannot be read: ${p.file}: ${p.problem} (fix it by hand, or \`uwf workflow rm ${shellQuote(p.name)}\` and add it again)`,
        ),
      ].join("\n"),
    );
  },
});
