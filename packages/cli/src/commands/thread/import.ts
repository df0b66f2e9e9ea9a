import type { ThreadImportDocument } from "@united-workforce/protocol";
import { readInput } from "../cas/read-input.js";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["thread", "import"],
  summary: "bring threads from a bundle into this store, verified before anything is written",
  description:
    "Every node of the bundle must hash to its name and every thread must pass `uwf thread verify` against the bundle alone; a thread that exists here with another history is refused. Otherwise nothing is written. Importing a thread that is already here unchanged does nothing.",
  args: [{ name: "file", description: 'the bundle ("-": stdin)' }],
  examples: ["uwf thread import run.uwf-bundle"],
  async run(ctx, [file]) {
    const { importBundle } = await import("@united-workforce/engine");
    const store = await ctx.store();
    const report = await importBundle(store, readInput(ctx.cwd, file));
    const doc: ThreadImportDocument = report;
    return result(doc, (d) =>
      [
        ...d.threads.map(
          (t) =>
            `${t.thread}: ${t.status === "imported" ? "imported" : "already here, unchanged"} (${t.steps} step${t.steps === 1 ? "" : "s"}, head ${t.head})`,
        ),
        `${d.nodes} nodes in the bundle, ${d.nodesWritten} new here`,
      ].join("\n"),
    );
  },
});
