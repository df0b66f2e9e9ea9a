import { defineCommand } from "../command.js";
import { guide } from "./guide.js";

export default defineCommand({
  path: ["prompt", "usage"],
  summary: "how to drive uwf from a terminal, a script or an agent: commands, exit codes, JSON",
  async run(ctx) {
    const { renderUsage } = await import("./texts/usage.js");
    return guide("usage", renderUsage(await ctx.commands()));
  },
});
