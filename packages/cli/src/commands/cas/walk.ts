import type { CasWalkDocument } from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";
import { typeName } from "./type-name.js";

export default defineCommand({
  path: ["cas", "walk"],
  summary: "list every node reachable from a hash, breadth first",
  args: [{ name: "hash", type: "hash", description: "root hash" }],
  options: [
    {
      flags: "-d, --depth <n>",
      type: "integer",
      min: 0,
      description: "stop after this many levels",
    },
  ],
  async run(ctx, [hash], options) {
    const depth = options.depth;
    const nodes: CasWalkDocument["nodes"] = [];
    for await (const entry of (await ctx.store()).cas.walk(
      hash!,
      depth === undefined ? {} : { maxDepth: depth },
    )) {
      nodes.push({ hash: entry.hash, type: entry.node.type, depth: entry.depth });
    }
    const doc: CasWalkDocument = { root: hash!, nodes };
    return result(doc, (d) =>
      d.nodes.map((n) => `${"  ".repeat(n.depth)}${n.hash}  ${typeName(n.type)}`).join("\n"),
    );
  },
});
