import { closeSync, openSync, readSync } from "node:fs";
import { sleepUnlessAborted } from "../sleep.js";
import { listLogFiles } from "./log-files.js";
import { type LogRecord, parseLogLine } from "./log-reader.js";

export interface FollowLogOptions {
  home: string;
  /** Following stops when this aborts; the returned promise then resolves. */
  signal: AbortSignal;
  /** `end` (default): only lines written from now on; `start`: the newest day file from its start. */
  from?: "end" | "start";
  /**
   * With `from: start`, the day (`YYYY-MM-DD`, UTC) to start from when it is older than the newest
   * file: a run that began before midnight logged its first lines in an earlier file.
   */
  sinceDay?: string;
  /** How often the files are looked at. A poll costs one stat-like read; 200 ms keeps a live view within a second. */
  intervalMs?: number;
  /**
   * Called once what was already in the file has been delivered (at once with `from: end`):
   * a follower that replays history quietly starts showing events from here.
   */
  onCaughtUp?: () => void;
}

/**
 * Follow the process log (`$UWF_HOME/logs/<UTC day>.jsonl`) as other processes append to it,
 * like `tail -F`: every exec, foreground or background, logs its steps there, so this is how a
 * second terminal or the web view sees a run it did not start. A new day's file is picked up
 * when it appears; lines that are not JSON (a torn write) are skipped.
 *
 * Polling rather than fs.watch: watch events are lost or doubled on some file systems, and a
 * poll of one open file is cheap. When `signal` aborts, the file is read once more: a follower
 * stopped because the writer finished still sees the writer's last lines.
 */
export async function followLog(
  options: FollowLogOptions,
  onRecord: (record: LogRecord) => void,
): Promise<void> {
  const { home, signal } = options;
  const interval = options.intervalMs ?? 200;
  let current = listLogFiles(home).at(-1);
  let offset = current && options.from !== "start" ? current.bytes : 0;
  let partial = "";

  const drain = (path: string): void => {
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch {
      return; // Removed by `log clean` meanwhile: the next poll finds the newest file.
    }
    try {
      const buffer = Buffer.alloc(64 * 1024);
      for (;;) {
        const read = readSync(fd, buffer, 0, buffer.length, offset);
        if (read === 0) break;
        offset += read;
        partial += buffer.toString("utf8", 0, read);
      }
    } finally {
      closeSync(fd);
    }
    const lines = partial.split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      const record = parseLogLine(line);
      if (record !== null) onRecord(record);
    }
  };

  if (options.from === "start" && options.sinceDay !== undefined) {
    // Earlier days' files first, whole, oldest first; then the newest as usual.
    for (const file of listLogFiles(home)) {
      if (file.date < options.sinceDay || file.path === current?.path) continue;
      offset = 0;
      partial = "";
      drain(file.path);
    }
    offset = 0;
    partial = "";
  }
  if (current) drain(current.path);
  options.onCaughtUp?.();
  while (!signal.aborted) {
    if (current) drain(current.path);
    const newest = listLogFiles(home).at(-1);
    if (newest && newest.path !== current?.path) {
      // A new day began (or the first file appeared): finish the old file, then read the new one.
      if (current) drain(current.path);
      current = newest;
      offset = 0;
      partial = "";
      drain(current.path);
    }
    await sleepUnlessAborted(interval, signal);
  }
  if (current) drain(current.path);
}
