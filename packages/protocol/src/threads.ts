import type { Hash, Usage } from "./nodes.js";

/** What a user sees. `running` and `corrupt` are derived, never stored. */
export const THREAD_STATUSES = [
  "idle",
  "running",
  "suspended",
  "completed",
  "cancelled",
  "corrupt",
] as const;
export type ThreadStatus = (typeof THREAD_STATUSES)[number];
/** What the pointer file stores. */
export type StoredThreadStatus = "idle" | "suspended" | "completed" | "cancelled";

/** Why a thread waits: a `$SUSPEND` edge or status (question) or an agent failure. */
export type SuspendKind = "question" | "failure";

export interface SuspendInfo {
  role: string;
  reason: string;
  kind: SuspendKind;
  /** The edge prompt the suspended role was (or would have been) given, for resume. */
  prompt?: string;
  /** The edge's rendered `location`, so a retried step runs where the failed one did. */
  location?: string | null;
}

/** `threads/<id>.json`: the only mutable state of a thread. */
export interface ThreadPointer {
  thread: string;
  workflow: string;
  workflowHash: Hash;
  start: Hash;
  head: Hash;
  status: StoredThreadStatus;
  /** The role that ran last, or null while the head is the StartNode. */
  currentRole: string | null;
  suspended: SuspendInfo | null;
  /** Number of steps in the chain up to head; kept so nothing walks the chain to count. */
  steps: number;
  cwd: string;
  createdAt: string;
  updatedAt: string;
  forkedFrom?: Hash;
  /** Usage summed over every step this thread ran, so `thread show` never walks the chain. */
  usage?: Usage;
  /**
   * Revision, raised by one at every write: the compare-and-swap token of `threads.swap`.
   * Pointers written before it existed read as revision 0.
   */
  rev?: number;
}

export const threadPointerSchema = {
  $id: "uwf:thread-pointer",
  type: "object",
  required: [
    "thread",
    "workflow",
    "workflowHash",
    "start",
    "head",
    "status",
    "currentRole",
    "suspended",
    "steps",
    "cwd",
    "createdAt",
    "updatedAt",
  ],
  properties: {
    thread: { type: "string" },
    workflow: { type: "string" },
    workflowHash: { type: "string" },
    start: { type: "string" },
    head: { type: "string" },
    status: { enum: ["idle", "suspended", "completed", "cancelled"] },
    currentRole: { type: ["string", "null"] },
    suspended: {
      oneOf: [
        { type: "null" },
        {
          type: "object",
          required: ["role", "reason", "kind"],
          properties: {
            role: { type: "string" },
            reason: { type: "string" },
            kind: { enum: ["question", "failure"] },
            prompt: { type: "string" },
            location: { type: ["string", "null"] },
          },
        },
      ],
    },
    steps: { type: "integer", minimum: 0 },
    cwd: { type: "string" },
    createdAt: { type: "string" },
    updatedAt: { type: "string" },
    forkedFrom: { type: "string" },
    usage: { type: "object" },
    rev: { type: "integer", minimum: 0 },
  },
} as const;
