import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const LOG_FILE = /^(\d{4}-\d{2}-\d{2})\.jsonl$/;

export interface LogFile {
  date: string;
  path: string;
  bytes: number;
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
    files.push({ date: match[1]!, path, bytes: statSync(path).size });
  }
  return files;
}
