import type { CasRefsDocument } from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["cas", "refs"],
  summary: "list the hashes a node points to (its type and cas-ref fields)",
  args: [{ name: "hash", type: "hash", description: "node hash" }],
  async run(ctx, [hash]) {
    const refs = await (await ctx.store()).cas.refs(hash!);
    const doc: CasRefsDocument = { hash: hash!, refs };
    return result(doc, (d) => d.refs.join("\n"));
  },
});
