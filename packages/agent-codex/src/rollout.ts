import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CodexTokenTotals } from "./events.js";

/**
 * Codex keeps each session in a rollout file, `$CODEX_HOME/sessions/YYYY/MM/DD/
 * rollout-<time>-<thread id>.jsonl`. The adapter reads it for two facts before resuming a
 * session: that it still exists (else `codex exec resume` fails; a new session is started
 * instead), and its token totals so far, because a resumed run reports the session's totals,
 * not its own. After a failed run it also gives codex's own code for the failure.
 */

/** `CODEX_HOME`, else `~/.codex`; null when neither is known. */
export function codexHome(env: Record<string, string | undefined>): string | null {
  if (env.CODEX_HOME) return env.CODEX_HOME;
  return env.HOME ? join(env.HOME, ".codex") : null;
}

/** The rollout file of a codex thread, or null when there is none. */
export function findRollout(home: string, threadId: string): string | null {
  const suffix = `-${threadId}.jsonl`;
  const sessions = join(home, "sessions");
  // Newest first: a session resumed by uwf is usually recent.
  for (const year of subdirs(sessions)) {
    for (const month of subdirs(join(sessions, year))) {
      for (const day of subdirs(join(sessions, year, month))) {
        const dir = join(sessions, year, month, day);
        const file = entries(dir).find((name) => name.endsWith(suffix));
        if (file) return join(dir, file);
      }
    }
  }
  return null;
}

/** The session's token totals after its last model request, or null when it records none. */
export function rolloutTotals(file: string): CodexTokenTotals | null {
  return newestEntry(file, '"token_count"', (entry) => {
    const total = dig(entry, ["payload", "info", "total_token_usage"]);
    if (!total || typeof total.input_tokens !== "number") return undefined;
    return {
      input_tokens: count(total.input_tokens),
      cached_input_tokens: count(total.cached_input_tokens),
      cache_write_input_tokens: count(total.cache_write_input_tokens),
      output_tokens: count(total.output_tokens),
    };
  });
}

/**
 * The HTTP status behind the session's last failure, from codex's `codex_error_info`; null when
 * it names none. Codex replaces an HTTP 500's message with "We're currently experiencing high
 * demand…": this code is the only place the status survives.
 */
export function rolloutFailureStatus(file: string): string | null {
  return newestEntry(file, '"codex_error_info"', (entry) => {
    const info = dig(entry, ["payload", "error"])?.codex_error_info;
    if (info === "internal_server_error") return "HTTP 500 Internal Server Error";
    if (typeof info === "object" && info !== null) {
      for (const detail of Object.values(info)) {
        const status = (detail as Record<string, unknown> | null)?.http_status_code;
        if (typeof status === "number") return `HTTP ${status}`;
      }
    }
    // The last failure names no status: an older one does not explain this run.
    return null;
  });
}

/**
 * Walk the rollout's JSON lines newest first, looking only at lines holding `marker`, until
 * `pick` answers something other than undefined. An unreadable file or no answer gives null.
 */
function newestEntry<T>(
  file: string,
  marker: string,
  pick: (entry: unknown) => T | null | undefined,
): T | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (!line.includes(marker)) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    const picked = pick(entry);
    if (picked !== undefined) return picked;
  }
  return null;
}

function dig(value: unknown, path: string[]): Record<string, unknown> | null {
  let at = value;
  for (const key of path) {
    if (typeof at !== "object" || at === null) return null;
    at = (at as Record<string, unknown>)[key];
  }
  return typeof at === "object" && at !== null ? (at as Record<string, unknown>) : null;
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

function subdirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort()
      .reverse();
  } catch {
    return [];
  }
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
