import type { ThreadStatus } from "@united-workforce/protocol";

/**
 * What the live feed (`/events`, the server's live.ts) sends that this script reads: the process
 * log's events for a thread, trimmed to a few fields, and `thread.status`, the thread's row as
 * the store has it (the server's `ThreadRow`). Other events (`step.aborted`,
 * `thread.suspended`…) come too and match no branch.
 */
export type FeedEvent = StepStart | AdapterOutput | StepDone | StepFailed | ThreadStatusEvent;

export interface StepStart {
  event: "step.start";
  stepNumber: number;
  role: string;
  agent: string;
  ts?: string;
}

export interface AdapterOutput {
  event: "adapter.output";
  line: string;
}

export interface StepDone {
  event: "step.done";
  role: string;
  status: string;
  durationMs: number;
}

export interface StepFailed {
  event: "step.failed";
  role: string;
  reason: string;
}

export interface ThreadStatusEvent {
  event: "thread.status";
  thread: string;
  status: ThreadStatus;
  currentRole: string | null;
  steps: number;
  updatedAt: string;
  /** The question of a suspended thread, or why it failed. */
  waiting: string | null;
  costUsd: number | null;
  /** Steps that reported no cost: with any, `costUsd` is a lower bound. */
  unknownCostSteps: number;
}
