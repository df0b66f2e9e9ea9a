import { type CasVerifyDocument, ExitCode } from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["cas", "verify"],
  summary: "re-hash every stored node and report corrupt files (exit 1 if any)",
  async run(ctx) {
    const doc: CasVerifyDocument = await (await ctx.store()).verify();
    return result(
      doc,
      (d) =>
        [
          `${d.checked} checked, ${d.ok} ok, ${d.corrupt.length} corrupt`,
          ...d.corrupt.map((c) => `  ${c.file}: ${c.problem}`),
        ].join("\n"),
      doc.corrupt.length > 0 ? ExitCode.error : ExitCode.ok,
    );
  },
});
