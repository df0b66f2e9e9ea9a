import { readFileSync } from "node:fs";
import { isEventName, type LogShowDocument } from "@united-workforce/protocol";
import {
  eventOf,
  type LogRecord,
  listLogFiles,
  parseLogLine,
  UwfError,
} from "@united-workforce/util";
import { type CommandContext, type CommandResult, defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["log", "show"],
  // -f waits for new lines until Ctrl-C, which then ends it with exit 130.
  interruptible: true,
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
    {
      flags: "-f, --follow",
      type: "boolean",
      description:
        "then print matching events as they are appended, until Ctrl-C (with --format json: one JSON object per line)",
    },
  ],
  examples: [
    "uwf log show --thread 01JD…",
    "uwf log show 2026-11-22 --event step.",
    "uwf log show -f --thread 01JD… --event step.",
  ],
  async run(ctx, [date], options) {
    const matches = (event: Record<string, unknown>): boolean =>
      (options.thread === undefined || event.thread === options.thread) &&
      (options.event === undefined || String(event.event).startsWith(String(options.event))) &&
      (options.level === undefined || event.level === options.level);
    if (options.follow) {
      if (date !== undefined) {
        throw new UwfError("USAGE", "--follow follows the newest log; it takes no date", {
          hint: "Leave out the date: uwf log show -f",
        });
      }
      if (ctx.format === "yaml") {
        throw new UwfError("USAGE", "--follow prints JSON lines or text, not YAML", {
          hint: "Use --format json (one JSON object per line) or the default text.",
        });
      }
      return follow(ctx, matches, options.tail);
    }
    const files = listLogFiles(ctx.home);
    const file = date === undefined ? files.at(-1) : files.find((f) => f.date === date);
    if (!file) {
      if (date === undefined) return result({ events: [], skipped: 0 }, () => "no logs yet");
      throw new UwfError("LOG_NOT_FOUND", `no log file for ${date}`, {
        hint: "See the available days with `uwf log list`.",
      });
    }
    const events: LogRecord[] = [];
    let skipped = 0;
    for (const line of readFileSync(file.path, "utf8").split("\n")) {
      if (line.trim() === "") continue;
      const record = readable(line);
      if (record === null) skipped++;
      else if (matches(record)) events.push(record);
    }
    const tail = options.tail ?? events.length;
    const shown = events.slice(Math.max(0, events.length - tail));
    return result({ file: file.path, events: shown, skipped }, (d) =>
      d.events.map(eventLine).join("\n"),
    );
  },
});

/**
 * A log line as it is shown: a record whose event fits its schema, or one of an event this uwf
 * does not know (a newer uwf's, shown as it is); null for a torn or altered line.
 */
function readable(line: string): LogRecord | null {
  const record = parseLogLine(line);
  if (record === null) return null;
  if (isEventName(record.event) && eventOf(record) === null) return null;
  return record;
}

function eventLine(e: Record<string, unknown>): string {
  const { ts, level, event, ...rest } = e;
  return `${ts} ${String(level).padEnd(5)} ${event} ${JSON.stringify(rest)}`;
}

/**
 * `log show -f`: the last matching events of the newest file (all, or `--tail`), then each new
 * one as it is appended, across midnight, until Ctrl-C. What was printed is the result.
 */
async function follow(
  ctx: CommandContext,
  matches: (event: Record<string, unknown>) => boolean,
  tail: number | undefined,
): Promise<CommandResult<LogShowDocument>> {
  const { followLog } = await import("@united-workforce/util");
  const print = (event: Record<string, unknown>): void =>
    ctx.output(`${ctx.format === "json" ? JSON.stringify(event) : eventLine(event)}\n`);
  const history: LogRecord[] = [];
  let live = false;
  await followLog(
    {
      home: ctx.home,
      signal: ctx.signal,
      from: "start",
      onCaughtUp: () => {
        live = true;
        for (const event of history.slice(Math.max(0, history.length - (tail ?? history.length))))
          print(event);
      },
    },
    (record) => {
      // The same lines as without --follow: a torn or altered one is not shown.
      if (isEventName(record.event) && eventOf(record) === null) return;
      if (!matches(record)) return;
      if (live) print(record);
      else history.push(record);
    },
  );
  const file = listLogFiles(ctx.home).at(-1)?.path ?? "";
  return { document: { file, events: [], skipped: 0 }, text: () => "", printed: true };
}
