/**
 * `--format json` documents (DESIGN §13). Keys are stable: more may be added, none renamed.
 * Times are ISO 8601 UTC strings, durations milliseconds.
 */
import type { Hash, JsonValue, Usage } from "./nodes.js";
import type { SuspendKind, ThreadStatus } from "./threads.js";

export interface ErrorDocument {
  error: { code: string; message: string; hint: string | null };
}

export interface WorkflowDocument {
  name: string;
  hash: Hash;
  description: string | null;
  roles: string[];
  warnings: string[];
  source?: string;
}

export interface WorkflowValidateDocument {
  valid: boolean;
  name: string | null;
  hash: Hash | null;
  errors: string[];
  warnings: string[];
  source: string;
}

export interface WorkflowListDocument {
  workflows: { name: string; hash: Hash; updatedAt: string; versions: number }[];
}

export interface WorkflowHistoryDocument {
  name: string;
  current: Hash;
  history: { hash: Hash; at: string }[];
}

export interface WorkflowRemoveDocument {
  name: string;
  removed: boolean;
}

export interface CasGetDocument {
  hash: Hash;
  type: string;
  payload: JsonValue;
}
export interface CasPutDocument {
  hash: Hash;
  type: string;
}
export interface CasHasDocument {
  hash: Hash;
  exists: boolean;
}
export interface CasRefsDocument {
  hash: Hash;
  refs: Hash[];
}
export interface CasWalkDocument {
  root: Hash;
  nodes: { hash: Hash; type: string; depth: number }[];
}
export interface CasVerifyDocument {
  checked: number;
  ok: number;
  corrupt: { hash: string; file: string; problem: string }[];
}
export interface CasGcDocument {
  dryRun: boolean;
  roots: number;
  reachable: number;
  unreachable: Hash[];
  deleted: number;
  bytes: number;
  /** Unreachable but written within the grace period, so kept. */
  recent: Hash[];
}

export interface ThreadStartDocument {
  thread: string;
  workflow: string;
  head: Hash;
  status: ThreadStatus;
}

export interface ThreadShowDocument {
  thread: string;
  workflow: string;
  workflowHash: Hash;
  head: Hash;
  status: ThreadStatus;
  currentRole: string | null;
  nextRole: string | null;
  suspended: { role: string; reason: string; kind: SuspendKind } | null;
  steps: number;
  usage: Usage;
  cwd: string;
  createdAt: string;
  updatedAt: string;
  lockHolder: { pid: number; since: string } | null;
}

export type StoppedBecause =
  | "completed"
  | "suspended"
  | "count"
  | "failed"
  | "cancelled"
  | "stopped"
  | "background";

export interface ExecStepResult {
  hash: Hash;
  role: string;
  status: string;
  agent: string;
  durationMs: number;
}

export interface ThreadExecDocument {
  thread: string;
  status: ThreadStatus;
  stoppedBecause: StoppedBecause;
  message: string;
  steps: ExecStepResult[];
  pid?: number;
}

export interface ThreadListEntry {
  thread: string;
  workflow: string;
  status: ThreadStatus;
  currentRole: string | null;
  createdAt: string;
  updatedAt: string;
  steps: number;
  problem?: string;
}

export interface ThreadListDocument {
  threads: ThreadListEntry[];
  total: number;
}

export interface StepListEntry {
  hash: Hash;
  role: string;
  status: string;
  agent: string;
  startedAt: string;
  durationMs: number;
  usage: Usage;
}

export interface StepListDocument {
  thread: string;
  workflow: string;
  steps: StepListEntry[];
}

export interface StepForkDocument {
  thread: string;
  forkedFrom: Hash;
}
