import type { FromSchema } from "./from-schema.js";
import { usageSchema } from "./nodes.js";
import { hashSchema, isoTimeSchema, threadIdSchema } from "./string-schemas.js";

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

/**
 * Why a thread waits: a `$SUSPEND` edge or status (question), an agent failure, a budget
 * (`--max-cost`, `--max-steps`, config `limits`) reached before the next step started, or a
 * role answered by a human (`agent: human`), which `uwf thread answer` completes; a workflow
 * guard (`maxSteps`, a role's `maxVisits`) reached before the next step started; or an agent
 * that kept failing transiently (rate limit, 5xx), to be retried after `retryAfter`; or a
 * fan-out whose children cannot all end (one failed under `failure: all`, or one waits).
 */
const suspendKindSchema = {
  enum: ["question", "failure", "budget", "human", "guard", "retry", "fanout"],
} as const;
export type SuspendKind = FromSchema<typeof suspendKindSchema>;

export const suspendInfoSchema = {
  type: "object",
  required: ["role", "reason", "kind"],
  properties: {
    role: { type: "string" },
    reason: { type: "string" },
    kind: suspendKindSchema,
    // The edge prompt the suspended role was (or would have been) given, for resume.
    prompt: { type: "string" },
    // The edge's rendered `location`, so a retried step runs where the failed one did.
    location: { type: ["string", "null"] },
    // `retry`: when the step may run again (ISO 8601); `thread exec --wait` waits until then.
    retryAfter: isoTimeSchema,
    // `guard`: which guard stopped the thread (`maxSteps`, or `maxVisits` of `role`).
    guard: { enum: ["maxSteps", "maxVisits"] },
    // The step to run again is a poke's: it replaces the head, as the poke would have. Absent
    // (pointers from before it was recorded, and every other step): it follows the head.
    replaceHead: { type: "boolean" },
  },
} as const;
export type SuspendInfo = FromSchema<typeof suspendInfoSchema>;

/**
 * The git worktree a thread runs in (`worktree: true`, `thread start --worktree`): the thread's
 * cwd is inside `path`, a checkout of `branch` made from `repo` (the main checkout's top
 * folder) at commit `base`.
 */
export const threadWorktreeSchema = {
  type: "object",
  required: ["path", "branch", "repo", "base"],
  properties: {
    path: { type: "string" },
    branch: { type: "string" },
    repo: { type: "string" },
    base: { type: "string" },
  },
} as const;
export type ThreadWorktree = FromSchema<typeof threadWorktreeSchema>;

/** What removing a thread's git worktree did: `note` says it for a human. */
export const worktreeRemovalSchema = {
  type: "object",
  required: ["path", "branch", "removed", "branchRemoved", "note"],
  properties: {
    path: { type: "string" },
    branch: { type: "string" },
    removed: { type: "boolean" },
    branchRemoved: { type: "boolean" },
    note: { type: "string" },
  },
} as const;

/**
 * A fan-out's child names its parent: the parent thread, the parent's step whose route fanned
 * out (the child's id is derived from both and `index`, so a re-run finds it), and the item's
 * position in the list.
 */
export const threadParentSchema = {
  type: "object",
  required: ["thread", "step", "index"],
  properties: {
    thread: threadIdSchema,
    // The step's hash, or the parent's StartNode when it fanned out from $START.
    step: hashSchema,
    index: { type: "integer", minimum: 0 },
  },
} as const;
export type ThreadParent = FromSchema<typeof threadParentSchema>;

/** A note `uwf thread steer` left for the thread's next step. */
export const guidanceNoteSchema = {
  type: "object",
  required: ["text", "at", "rev"],
  properties: {
    text: { type: "string", minLength: 1 },
    at: isoTimeSchema,
    rev: { type: "integer", minimum: 1 },
  },
} as const;
export type GuidanceNote = FromSchema<typeof guidanceNoteSchema>;

/**
 * A fork `thread race` made: the race (a ULID), the thread raced (`of`), the step it was
 * forked at, the agent it runs with, and, once `thread race promote` chose, whether it won.
 */
export const threadRaceSchema = {
  type: "object",
  required: ["id", "of", "at", "agent"],
  properties: {
    id: threadIdSchema,
    of: threadIdSchema,
    at: hashSchema,
    agent: { type: "string" },
    outcome: { enum: ["won", "lost"] },
  },
} as const;
export type ThreadRace = FromSchema<typeof threadRaceSchema>;

/**
 * A race of this thread: its id, the step its forks were made at, and the thread's head when
 * it began (promotion is refused once the head moved from there).
 */
export const threadRacedSchema = {
  type: "object",
  required: ["id", "at", "head"],
  properties: { id: threadIdSchema, at: hashSchema, head: hashSchema },
} as const;
export type ThreadRaced = FromSchema<typeof threadRacedSchema>;

/** `thread race promote` moved this thread to the head of `fork`, the winner of `race`. */
export const threadPromotionSchema = {
  type: "object",
  required: ["race", "fork", "head"],
  properties: {
    race: threadIdSchema,
    fork: threadIdSchema,
    // The thread's head before the promotion.
    head: hashSchema,
    // The fork kept with the steps the thread had after the race's step (a race `--at` an
    // earlier step); absent when it had none.
    kept: threadIdSchema,
  },
} as const;
export type ThreadPromotion = FromSchema<typeof threadPromotionSchema>;

/** What the pointer file stores; `running` and `corrupt` are derived. */
const storedThreadStatusSchema = { enum: ["idle", "suspended", "completed", "cancelled"] } as const;
export type StoredThreadStatus = FromSchema<typeof storedThreadStatusSchema>;

/**
 * `threads/<id>.json`: the only mutable state of a thread. The store reads every pointer with
 * this schema (`pointerProblem`), and `thread import` takes none that fails it.
 */
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
    thread: threadIdSchema,
    workflow: { type: "string" },
    workflowHash: hashSchema,
    start: hashSchema,
    head: hashSchema,
    status: storedThreadStatusSchema,
    // The role that ran last, or null while the head is the StartNode.
    currentRole: { type: ["string", "null"] },
    suspended: { oneOf: [{ type: "null" }, suspendInfoSchema] },
    // Number of steps in the chain up to head; kept so nothing walks the chain to count.
    steps: { type: "integer", minimum: 0 },
    cwd: { type: "string" },
    createdAt: isoTimeSchema,
    updatedAt: isoTimeSchema,
    // The thread's name: `thread start --title`, or the task's first line; a fan-out's child is
    // named by its item. Absent in pointers written before uwf kept one.
    title: { type: "string" },
    forkedFrom: hashSchema,
    // The agent the thread was last run with by `--agent` (an alias, or a command line with an
    // absolute command), used again when a later exec, resume or poke names none.
    agent: { type: "string" },
    // The thread's own git worktree, when it has one.
    worktree: threadWorktreeSchema,
    // A fan-out's child: the thread and step it was fanned out from.
    parent: threadParentSchema,
    // `thread rebase` made this thread from another one's history under an edited workflow:
    // that thread, and its last step this one reuses (its StartNode when none was reused).
    rebasedFrom: {
      type: "object",
      required: ["thread", "step"],
      properties: { thread: threadIdSchema, step: hashSchema },
    },
    // Guidance notes from `thread steer` no step has taken yet, oldest first: the next stored
    // step's prompt carries them, and that step's pointer write drops them. `rev` is the
    // revision the steer wrote, so a concurrent exec can tell a steer's write from any other.
    guidance: { type: "array", items: guidanceNoteSchema },
    // Made by `thread race`: the race this fork runs in.
    race: threadRaceSchema,
    // The races of this thread (`thread race`), oldest first.
    races: { type: "array", items: threadRacedSchema },
    // The last `thread race promote` that moved this thread to a fork's head.
    promotedFrom: threadPromotionSchema,
    // Usage summed over every step this thread ran, so `thread show` never walks the chain.
    usage: usageSchema,
    // How many of those steps reported no cost: with any, `usage.costUsd` is a lower bound.
    // Counted since uwf began keeping it: absent in older pointers, which read as 0.
    unknownCostSteps: { type: "integer", minimum: 0 },
    // Revision, raised by one at every write: the compare-and-swap token of `threads.swap`.
    // Pointers written before it existed read as revision 0.
    rev: { type: "integer", minimum: 0 },
  },
} as const;
export type ThreadPointer = FromSchema<typeof threadPointerSchema>;
