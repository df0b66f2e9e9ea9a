import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { isoTime } from "../iso-time.js";

const LOG_FILE = /^(\d{4}-\d{2}-\d{2})\.jsonl$/;

export interface LogFile {
  /** The UTC day, `YYYY-MM-DD`. */
  date: string;
  path: string;
  bytes: number;
}

/** `logs/YYYY-MM-DD.jsonl` (UTC day) under the storage root. */
export function logFilePath(home: string, ms: number = Date.now()): string {
  return join(home, "logs", `${isoTime(ms).slice(0, 10)}.jsonl`);
}

/** The day files under `logs/`, oldest first. Anything else in the folder is left alone. */
export function listLogFiles(home: string): LogFile[] {
  const dir = join(home, "logs");
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const files: LogFile[] = [];
  for (const name of names.sort()) {
    const match = LOG_FILE.exec(name);
    if (!match) continue;
    const path = join(dir, name);
    try {
      files.push({ date: match[1]!, path, bytes: statSync(path).size });
    } catch {
      // Removed by `log clean` meanwhile.
    }
  }
  return files;
}
