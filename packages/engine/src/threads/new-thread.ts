import {
  type JsonValue,
  type StartPayload,
  startNodeKind,
  type ThreadParent,
  type ThreadPointer,
  type ThreadWorktree,
} from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { isoTime } from "@united-workforce/util";
import { titleFromText } from "./title.js";

/** What a new thread is made of: `thread start` and a fan-out's children both make one. */
export interface NewThread {
  thread: string;
  /** The workflow's name and the hash of its stored node. */
  workflow: string;
  workflowHash: string;
  prompt: string;
  /** The thread's name; without one, the prompt's first line, else the workflow's name. */
  title?: string;
  cwd: string;
  /** The StartNode's time: the same fields give the same StartNode hash. */
  createdAtMs: number;
  /** Only for a workflow that declares inputs. */
  inputs?: Record<string, JsonValue>;
  worktree?: ThreadWorktree;
  parent?: ThreadParent;
}

/**
 * Store a new thread: its StartNode, then its pointer, created (never overwriting one: an id
 * already taken is THREAD_EXISTS). Returns the pointer as stored.
 */
export async function createThread(
  store: Pick<Store, "cas" | "threads">,
  spec: NewThread,
): Promise<ThreadPointer> {
  const startPayload: StartPayload = {
    workflow: spec.workflowHash,
    prompt: spec.prompt,
    cwd: spec.cwd,
    createdAtMs: spec.createdAtMs,
  };
  if (spec.inputs !== undefined) startPayload.inputs = spec.inputs;
  const start = await store.cas.put(store.cas.builtin(startNodeKind(startPayload)), startPayload);
  const pointer: ThreadPointer = {
    thread: spec.thread,
    workflow: spec.workflow,
    workflowHash: spec.workflowHash,
    start,
    head: start,
    status: "idle",
    currentRole: null,
    suspended: null,
    steps: 0,
    cwd: spec.cwd,
    createdAt: isoTime(spec.createdAtMs),
    updatedAt: isoTime(),
    title: spec.title ?? (titleFromText(spec.prompt) || spec.workflow),
  };
  if (spec.worktree !== undefined) pointer.worktree = spec.worktree;
  if (spec.parent !== undefined) pointer.parent = spec.parent;
  return store.threads.create(pointer);
}
