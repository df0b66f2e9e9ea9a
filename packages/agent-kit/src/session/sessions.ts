import { type Hash, isPlainObject, type StepPayload, type Usage } from "@united-workforce/protocol";
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
  /**
   * The step that last used the session. Left out in the detail of that very step (a node
   * cannot name itself); filled in when the next step reads the map.
   */
  step?: Hash;
}

export type SessionMap = Record<string, SessionRecord>;

/** A session to resume, with the detail of the step that last used it (the adapter's state). */
export interface ResumableSession extends SessionRecord {
  /** That step's detail payload: what the adapter kept there (e.g. uwf-builtin's conversation). */
  detail: Record<string, unknown> | null;
}

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

/**
 * The sessions recorded up to `head` (the StartNode has none): one step and one detail read.
 * The record the head step itself wrote gets `step: head`.
 */
export async function readSessions(cas: Cas, head: Hash, start: Hash): Promise<SessionMap> {
  if (head === start) return {};
  const step = await cas.getPayload<StepPayload>(head, "step");
  // Any detail shape is accepted: a step from an adapter that keeps no sessions has none.
  const sessions = asRecord((await cas.get(step.detail)).payload)?.sessions;
  if (!isSessionMap(sessions)) return {};
  const own = sessions[step.role];
  if (!own || own.step !== undefined) return sessions;
  return { ...sessions, [step.role]: { ...own, step: head } };
}

/** The session a role may resume (see `sessionToResume`), with its last step's detail. */
export async function resumableSession(
  cas: Cas,
  sessions: SessionMap,
  options: { role: string; adapter: string; cwd: string },
): Promise<ResumableSession | null> {
  const record = sessionToResume(sessions, options);
  if (!record) return null;
  if (record.step === undefined) return { ...record, detail: null };
  const step = await cas.getPayload<StepPayload>(record.step, "step");
  return { ...record, detail: asRecord((await cas.get(step.detail)).payload) };
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return isPlainObject(value) ? value : null;
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
  if (!isPlainObject(value)) return false;
  return Object.values(value).every(
    (record) =>
      typeof record === "object" &&
      record !== null &&
      typeof (record as SessionRecord).adapter === "string" &&
      typeof (record as SessionRecord).sessionId === "string" &&
      typeof (record as SessionRecord).cwd === "string",
  );
}
