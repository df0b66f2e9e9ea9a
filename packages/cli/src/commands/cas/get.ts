import type { CasGetDocument } from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["cas", "get"],
  summary: "print a node (its hash is verified on read)",
  args: [{ name: "hash", type: "hash", description: "node hash" }],
  examples: ["uwf cas get 0K4Q8Z3M1XH2C", "uwf cas get 0K4Q8Z3M1XH2C --format json"],
  async run(ctx, [hash]) {
    const node = await (await ctx.store()).cas.get(hash!);
    const doc: CasGetDocument = { hash: hash!, type: node.type, payload: node.payload as never };
    return result(doc, (d) =>
      typeof d.payload === "string" ? d.payload : JSON.stringify(d.payload, null, 2),
    );
  },
});
