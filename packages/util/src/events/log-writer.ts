import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { EVENT_LEVELS, type UwfEvent } from "@united-workforce/protocol";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "../home.js";
import { logFilePath } from "./log-files.js";

/** What a log line says of the process that wrote it, besides the event. */
export interface LogEnvelope {
  /** The command's words (`thread exec`), for lines a `uwf` command writes. */
  command?: string;
}

/**
 * The process log as a subscriber of the event stream: each event becomes one JSON line of the
 * UTC day's file (`logs/YYYY-MM-DD.jsonl`), led by `ts`, `level`, `event` and `pid`, then the
 * envelope, then the event's own fields. Logging is never worth failing a command over, so
 * every error is swallowed: a full disk or a read-only home must not break a step.
 */
export function eventLogWriter(
  home: string,
  envelope: LogEnvelope = {},
): (event: UwfEvent) => void {
  return (event) => {
    try {
      const { ts, event: name, ...fields } = event;
      // The envelope cannot hide what the event says, nor the event what the line is.
      const line = `${JSON.stringify({
        ts,
        level: EVENT_LEVELS[name],
        event: name,
        pid: process.pid,
        ...envelope,
        ...fields,
      })}\n`;
      appendLine(home, logFilePath(home, Date.parse(ts)), line);
    } catch {
      // See above: the log never throws.
    }
  };
}

function appendLine(home: string, file: string, line: string): void {
  try {
    appendFileSync(file, line, { mode: PRIVATE_FILE_MODE });
  } catch (error) {
    // The folder is made when the first line finds it missing (not checked every process).
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    // The log holds prompts and adapter output: for the owner only, like the home.
    mkdirSync(join(home, "logs"), { recursive: true, mode: PRIVATE_DIR_MODE });
    appendFileSync(file, line, { mode: PRIVATE_FILE_MODE });
  }
}
