import { rmSync } from "node:fs";
import { isoTime, listLogFiles } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["log", "clean"],
  summary: "delete log files older than a number of days (default 30)",
  options: [
    {
      flags: "--older-than <days>",
      type: "integer",
      min: 0,
      description: "keep the files of the last n days",
      default: "30",
    },
  ],
  async run(ctx, _args, options) {
    const days = options.olderThan;
    const cutoff = isoTime(Date.now() - days * 86_400_000).slice(0, 10);
    const deleted: string[] = [];
    for (const file of listLogFiles(ctx.home)) {
      if (file.date < cutoff) {
        rmSync(file.path, { force: true });
        deleted.push(file.date);
      }
    }
    return result(
      { deleted },
      (d) => `deleted ${d.deleted.length} log file${d.deleted.length === 1 ? "" : "s"}`,
    );
  },
});
