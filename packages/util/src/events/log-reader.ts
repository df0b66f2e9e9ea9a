import { eventFrom, isPlainObject, type UwfEvent } from "@united-workforce/protocol";

/**
 * One line of the process log: the envelope (`ts`, `level`, `event`, `pid`, and `command` for a
 * command's lines) and the event's fields.
 */
export type LogRecord = Record<string, unknown> & { ts: string; level: string; event: string };

/**
 * A log line as a record, or null for what is not one (a torn write, a blank line, anything
 * that is not a JSON object with a `ts` and an `event`): the log is read, never trusted.
 */
export function parseLogLine(line: string): LogRecord | null {
  if (line.trim() === "") return null;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  return isLogRecord(value) ? value : null;
}

function isLogRecord(value: unknown): value is LogRecord {
  return isPlainObject(value) && typeof value.event === "string" && typeof value.ts === "string";
}

/**
 * The event a log record holds, checked against its schema; null for a record of an event
 * this uwf does not know (a newer uwf's) or one whose fields do not fit (a hand-edited line).
 * The envelope's fields (`level`, `pid`, `command`) stay on it, as any extra key would.
 */
export function eventOf(record: LogRecord): UwfEvent | null {
  return eventFrom(record);
}
