import { type CasHasDocument, ExitCode } from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["cas", "has"],
  summary: "tell whether a node exists (exit 1 when it does not)",
  args: [{ name: "hash", type: "hash", description: "node hash" }],
  examples: ["uwf cas has 0K4Q8Z3M1XH2C && echo stored"],
  async run(ctx, [hash]) {
    const exists = await (await ctx.store()).cas.has(hash!);
    const doc: CasHasDocument = { hash: hash!, exists };
    return result(doc, (d) => (d.exists ? "yes" : "no"), exists ? ExitCode.ok : ExitCode.error);
  },
});
