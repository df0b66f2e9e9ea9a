import { readFileSync } from "node:fs";
import { UwfError } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";
import { listLogFiles } from "./files.js";

export default defineCommand({
  path: ["log", "show"],
  summary: "print log events (default: today's), optionally filtered",
  args: [
    {
      name: "date",
      type: "day",
      description: "UTC day, YYYY-MM-DD (default: the newest file)",
      required: false,
    },
  ],
  options: [
    { flags: "--thread <id>", type: "thread", description: "only events of this thread" },
    {
      flags: "--event <prefix>",
      type: "string",
      description: "only events whose name starts with this",
    },
    {
      flags: "--level <level>",
      type: "enum",
      description: "only this level",
      choices: ["debug", "info", "warn", "error"],
    },
    {
      flags: "-n, --tail <n>",
      type: "integer",
      min: 0,
      description: "only the last n matching events",
    },
  ],
  examples: ["uwf log show --thread 01JD…", "uwf log show 2026-11-22 --event step."],
  async run(ctx, [date], options) {
    const files = listLogFiles(ctx.home);
    const file = date === undefined ? files.at(-1) : files.find((f) => f.date === date);
    if (!file) {
      if (date === undefined) return result({ events: [], skipped: 0 }, () => "no logs yet");
      throw new UwfError("LOG_NOT_FOUND", `no log file for ${date}`, {
        hint: "See the available days with `uwf log list`.",
      });
    }
    const events: Record<string, unknown>[] = [];
    let skipped = 0;
    for (const line of readFileSync(file.path, "utf8").split("\n")) {
      if (line.trim() === "") continue;
      let event: Record<string, unknown>;
      try {
        event = JSON.parse(line);
      } catch {
        skipped++;
        continue;
      }
      if (options.thread !== undefined && event.thread !== options.thread) continue;
      if (options.event !== undefined && !String(event.event).startsWith(String(options.event)))
        continue;
      if (options.level !== undefined && event.level !== options.level) continue;
      events.push(event);
    }
    const tail = options.tail ?? events.length;
    const shown = events.slice(Math.max(0, events.length - tail));
    return result({ file: file.path, events: shown, skipped }, (d) =>
      d.events
        .map((e) => {
          const { ts, level, event, ...rest } = e as Record<string, unknown>;
          return `${ts} ${String(level).padEnd(5)} ${event} ${JSON.stringify(rest)}`;
        })
        .join("\n"),
    );
  },
});
