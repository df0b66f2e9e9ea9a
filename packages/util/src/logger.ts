import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "./home.js";
import { isoTime } from "./iso-time.js";

export type LogLevel = "debug" | "info" | "warn" | "error";

export interface Logger {
  log(level: LogLevel, event: string, fields?: Record<string, unknown>): void;
  info(event: string, fields?: Record<string, unknown>): void;
  warn(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
}

/** `logs/YYYY-MM-DD.jsonl` (UTC day) under the storage root. */
export function logFilePath(home: string, ms: number = Date.now()): string {
  return join(home, "logs", `${isoTime(ms).slice(0, 10)}.jsonl`);
}

/**
 * A structured JSONL logger. Logging is never worth failing a command over, so every error is
 * swallowed: a full disk or a read-only home must not break a step.
 */
export function createLogger(home: string, base: Record<string, unknown> = {}): Logger {
  const log = (level: LogLevel, event: string, fields: Record<string, unknown> = {}): void => {
    try {
      const now = Date.now();
      // ts, level, event and pid lead every line, and a field named like one cannot hide it.
      const record: Record<string, unknown> = {
        ts: isoTime(now),
        level,
        event,
        pid: process.pid,
      };
      for (const source of [base, fields]) {
        for (const [key, value] of Object.entries(source))
          if (!(key in record)) record[key] = value;
      }
      const line = `${JSON.stringify(record)}\n`;
      const file = logFilePath(home, now);
      try {
        appendFileSync(file, line, { mode: PRIVATE_FILE_MODE });
      } catch (error) {
        // The folder is made when the first line finds it missing (not checked every process).
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        // The log holds prompts and adapter output: for the owner only, like the home.
        mkdirSync(join(home, "logs"), { recursive: true, mode: PRIVATE_DIR_MODE });
        appendFileSync(file, line, { mode: PRIVATE_FILE_MODE });
      }
    } catch {
      // See above: the logger never throws.
    }
  };
  return {
    log,
    info: (event, fields) => log("info", event, fields),
    warn: (event, fields) => log("warn", event, fields),
    error: (event, fields) => log("error", event, fields),
  };
}
