import {
  eventFrom,
  type SuspendKind,
  type ThreadEvent,
  type ThreadStatus,
} from "@united-workforce/protocol";

/**
 * An event of the live feed, checked against its schema in protocol (the one vocabulary every
 * reader uses); null for anything else: the feed is read, never trusted.
 */
export function threadEventOf(value: unknown): ThreadEvent | null {
  const event = eventFrom(value);
  return event !== null && "thread" in event ? event : null;
}

/**
 * A thread's row as the store has it (the server's `ThreadRow`), sent as the feed's `status`
 * messages after each event, and by `/api/threads/<id>/status`.
 */
export interface ThreadStatusRow {
  thread: string;
  title: string | null;
  status: ThreadStatus;
  currentRole: string | null;
  steps: number;
  updatedAt: string;
  /** The question of a suspended thread, or why it failed. */
  waiting: string | null;
  /** What a suspended thread waits for. */
  waitKind: SuspendKind | null;
  /** Suspended on what only a person moves on: the list shows it first. */
  waitsForAPerson: boolean;
  costUsd: number | null;
  /** Steps that reported no cost: with any, `costUsd` is a lower bound. */
  unknownCostSteps: number;
}
