import type { Hash, StepPayload, Usage } from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";

/**
 * An agent session a role worked in, so its next visit resumes the same conversation. Every
 * step's detail carries the thread's whole map (`sessions`, by role), copied forward from the
 * step before: finding a role's session reads the head step and its detail, however long the
 * thread, and a fork resumes the sessions as they were at the step it forked from.
 */
export interface SessionRecord {
  /** The adapter that opened it (`uwf-claude-code`); another adapter never resumes it. */
  adapter: string;
  sessionId: string;
  /** Agent CLIs key sessions by directory: a session is resumed only in the same cwd. */
  cwd: string;
  model: string | null;
}

export type SessionMap = Record<string, SessionRecord>;

/** One model turn as an adapter reports it; agent-kit stores each as a `turn` node. */
export interface TurnRecord {
  /** What the agent said in this turn (may be empty when it only called tools). */
  text: string;
  toolCalls: ToolCallRecord[];
  /** This turn's usage when the agent reports it per turn; unknown figures stay null. */
  usage: Partial<Usage> | null;
}

export interface ToolCallRecord {
  name: string;
  input: unknown;
  /** The tool's result as the agent saw it, cut by the adapter when long. */
  output?: string;
  isError?: boolean;
}

/** The sessions recorded up to `head` (the StartNode has none). One step and one detail read. */
export async function readSessions(cas: Cas, head: Hash, start: Hash): Promise<SessionMap> {
  if (head === start) return {};
  const step = await cas.getPayload<StepPayload>(head, "step");
  // Any detail shape is accepted: a step from an adapter that keeps no sessions has none.
  const detail = (await cas.get(step.detail)).payload;
  const sessions =
    typeof detail === "object" && detail !== null ? Reflect.get(detail, "sessions") : null;
  return isSessionMap(sessions) ? sessions : {};
}

/** The session a role may resume: opened by this adapter in this directory. */
export function sessionToResume(
  sessions: SessionMap,
  options: { role: string; adapter: string; cwd: string },
): SessionRecord | null {
  const record = sessions[options.role];
  if (!record || record.adapter !== options.adapter || record.cwd !== options.cwd) return null;
  return record;
}

function isSessionMap(value: unknown): value is SessionMap {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  return Object.values(value).every(
    (record) =>
      typeof record === "object" &&
      record !== null &&
      typeof (record as SessionRecord).adapter === "string" &&
      typeof (record as SessionRecord).sessionId === "string" &&
      typeof (record as SessionRecord).cwd === "string",
  );
}
