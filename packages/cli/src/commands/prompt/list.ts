import type { PromptListDocument } from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["prompt", "list"],
  summary: "list the guides, one line each",
  examples: ["uwf prompt list", "uwf prompt bootstrap > bootstrap.md"],
  async run(ctx) {
    // The guides are the other `uwf prompt` commands: the command table is the list.
    const commands = await ctx.commands();
    const doc: PromptListDocument = {
      prompts: commands
        .filter((c) => c.path[0] === "prompt" && c.path[1] !== "list")
        .map((c) => ({
          name: c.path[1]!,
          summary: c.summary,
        })),
    };
    const width = Math.max(...doc.prompts.map((p) => p.name.length));
    return result(doc, (d) =>
      d.prompts.map((p) => `${p.name.padEnd(width)}  ${p.summary}`).join("\n"),
    );
  },
});
