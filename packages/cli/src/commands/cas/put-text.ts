import type { CasPutDocument } from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";
import { readInput } from "./read-input.js";

export default defineCommand({
  path: ["cas", "put-text"],
  summary: "store text as a text node and print its hash",
  args: [{ name: "text", description: "the text (none: read stdin)", required: false }],
  options: [
    { flags: "-f, --file <file>", type: "string", description: "read the text from a file" },
  ],
  examples: ['uwf cas put-text "hello"', "uwf cas put-text -f notes.md"],
  async run(ctx, [text], options) {
    const { cas } = await ctx.store();
    const content = text ?? (await readInput(ctx.cwd, options.file as string | undefined));
    const hash = await cas.putText(content);
    const doc: CasPutDocument = { hash, type: cas.builtin("text") };
    return result(doc, (d) => d.hash);
  },
});
