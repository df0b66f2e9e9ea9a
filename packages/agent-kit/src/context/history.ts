import type { Hash, StepPayload } from "@united-workforce/protocol";
import { isPlainObject, STATUS_FIELD } from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";

/** One earlier step as a later role sees it. */
export interface HistoryEntry {
  hash: Hash;
  role: string;
  /** The output's `$status`, or null when it has none. */
  status: string | null;
  output: Record<string, unknown>;
  /** The markdown body, cut to an excerpt when long. */
  body: string;
  bodyTruncated: boolean;
  agent: string;
  edgePrompt: string;
  startedAtMs: number;
  completedAtMs: number;
  /** True for the step the same role produced last time (where the walk stopped). */
  own: boolean;
}

export interface History {
  /** Oldest first. */
  entries: HistoryEntry[];
  /** True when older steps since the role last ran were left out to stay within the quota. */
  truncated: boolean;
}

export const DEFAULT_HISTORY_QUOTA = 20_000;
export const BODY_EXCERPT_CHARS = 2_000;

/**
 * The steps since `role` last ran, newest first while walking, returned oldest first. The walk
 * starts at `head` and stops at the role's own previous step (included, marked `own`), at the
 * StartNode, or when the rendered entries would exceed `quota` characters. It never reads more
 * of the chain than it returns, so a long thread costs no more than a short one.
 */
export async function collectHistory(
  cas: Cas,
  options: { head: Hash; start: Hash; role: string; quota?: number },
): Promise<History> {
  const quota = options.quota ?? DEFAULT_HISTORY_QUOTA;
  const entries: HistoryEntry[] = [];
  let used = 0;
  let truncated = false;
  let hash: Hash | null = options.head;
  while (hash !== null && hash !== options.start) {
    const step: StepPayload = await cas.getPayload<StepPayload>(hash, "step");
    let entry = await readEntry(cas, hash, step, options.role);
    let cost = renderHistoryEntry(entry).length;
    if (used + cost > quota) {
      if (entries.length > 0) {
        truncated = true;
        break;
      }
      // The newest step always appears, its body cut to what the quota leaves.
      entry = shortenBody(entry, Math.max(0, entry.body.length - (used + cost - quota)));
      cost = renderHistoryEntry(entry).length;
    }
    entries.push(entry);
    used += cost;
    if (entry.own) break;
    hash = step.prev;
  }
  return { entries: entries.reverse(), truncated };
}

async function readEntry(
  cas: Cas,
  hash: Hash,
  step: StepPayload,
  role: string,
): Promise<HistoryEntry> {
  const payload = (await cas.get(step.output)).payload;
  const output = isPlainObject(payload) ? payload : {};
  const status = output[STATUS_FIELD];
  const entry: HistoryEntry = {
    hash,
    role: step.role,
    status: typeof status === "string" ? status : null,
    output,
    body: await cas.getText(step.body),
    bodyTruncated: false,
    agent: step.agent,
    edgePrompt: step.edgePrompt,
    startedAtMs: step.startedAtMs,
    completedAtMs: step.completedAtMs,
    own: step.role === role,
  };
  return shortenBody(entry, BODY_EXCERPT_CHARS);
}

function shortenBody(entry: HistoryEntry, max: number): HistoryEntry {
  const body = entry.body.trim();
  if (body.length <= max) return { ...entry, body };
  return { ...entry, body: `${body.slice(0, max).trimEnd()}…`, bodyTruncated: true };
}

/** How an earlier step appears under `## What happened since`. */
export function renderHistoryEntry(entry: HistoryEntry): string {
  const status = entry.status === null ? "" : ` — \`${STATUS_FIELD}: ${entry.status}\``;
  const lines = [`### ${entry.role}${status}${entry.own ? " (your previous turn)" : ""}`];
  const fields = Object.entries(entry.output).filter(([name]) => name !== STATUS_FIELD);
  for (const [name, value] of fields) lines.push(`- ${name}: ${inline(value)}`);
  if (entry.body !== "") {
    lines.push("", ...entry.body.split("\n").map((line) => (line === "" ? ">" : `> ${line}`)));
    if (entry.bodyTruncated) lines.push(`> (cut; the full text is step ${entry.hash})`);
  }
  return lines.join("\n");
}

const FIELD_EXCERPT_CHARS = 500;

function inline(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const flat = text.replace(/\s*\n\s*/g, " ").trim();
  return flat.length > FIELD_EXCERPT_CHARS ? `${flat.slice(0, FIELD_EXCERPT_CHARS)}…` : flat;
}
