import { sanitizeTerminalText } from "@united-workforce/util";

/** ULIDs start with their time, so the first ten characters tell threads of one exec apart. */
export function shortThread(thread: string): string {
  return thread.slice(0, 10);
}

/** An agent's output as lines set under the line that introduces them. */
export function indent(text: string): string[] {
  return sanitizeTerminalText(text)
    .trimEnd()
    .split("\n")
    .map((line) => `    ${line}`);
}

/** `12s`, `3m05s`, `1h02m`: a ticking clock, whole seconds. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, "0")}m`;
}

/** Local wall-clock time `HH:MM:SS` for lines mode, as CI log viewers show their own. */
export function clockTime(ms: number): string {
  const at = new Date(ms);
  return [at.getHours(), at.getMinutes(), at.getSeconds()]
    .map((n) => String(n).padStart(2, "0"))
    .join(":");
}
