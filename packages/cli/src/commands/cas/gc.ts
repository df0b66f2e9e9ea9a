import type { CasGcDocument } from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["cas", "gc"],
  summary: "delete nodes no thread or registry entry reaches (dry run unless --yes)",
  options: [{ flags: "-y, --yes", description: "really delete", default: false }],
  examples: ["uwf cas gc", "uwf cas gc --yes"],
  async run(ctx, _args, options) {
    const { Cas, collectGcRoots } = await import("@united-workforce/store");
    const roots = collectGcRoots(ctx.home);
    const doc: CasGcDocument = Cas.open(ctx.home).gc(roots, { dryRun: options.yes !== true });
    return result(doc, (d) =>
      d.dryRun
        ? `${d.reachable} reachable, ${d.unreachable.length} unreachable (${d.bytes} bytes). Dry run: run \`uwf cas gc --yes\` to delete them.`
        : `${d.reachable} reachable, deleted ${d.deleted} unreachable nodes (${d.bytes} bytes).`,
    );
  },
});
