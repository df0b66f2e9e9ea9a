/**
 * JSON Schemas of the `--format json` documents (DESIGN §13), one per command, keyed by the
 * command's words. They are the single source of the documents' types (documents.ts derives
 * them) and pin the stable keys: a document may gain keys, never lose or rename one, so no
 * schema forbids extra keys. uwf's own test is stricter: it fails when a command prints a key
 * its schema does not list, except inside an object marked `additionalProperties: true`.
 */
import { STOPPED_BECAUSE } from "./events.js";
import { step2Schema, stepSchema, usageSchema as usage } from "./nodes.js";
import {
  hashSchema as hash,
  isoTimeSchema as isoTime,
  threadIdSchema as threadId,
} from "./string-schemas.js";
import {
  guidanceNoteSchema,
  suspendInfoSchema,
  THREAD_STATUSES,
  threadPromotionSchema,
  threadRaceSchema,
  worktreeRemovalSchema,
} from "./threads.js";

const nullableHash = { anyOf: [hash, { type: "null" }] } as const;
const str = { type: "string" } as const;
const nullableStr = { type: ["string", "null"] } as const;
const int = { type: "integer" } as const;
const bool = { type: "boolean" } as const;
const strings = { type: "array", items: str } as const;
const anyObject = { type: "object" } as const;
const threadStatus = { enum: THREAD_STATUSES } as const;

type Properties = Record<string, object>;
interface ObjectSchema<P extends Properties, R extends readonly (keyof P & string)[]> {
  type: "object";
  required: R;
  properties: P;
}

/** An object schema; every property is required unless the list of required ones says less. */
function object<const P extends Properties>(properties: P): ObjectSchema<P, (keyof P & string)[]>;
function object<const P extends Properties, const R extends readonly (keyof P & string)[]>(
  properties: P,
  required: R,
): ObjectSchema<P, R>;
function object(
  properties: Properties,
  required?: readonly string[],
): ObjectSchema<Properties, readonly string[]> {
  return { type: "object", required: required ?? Object.keys(properties), properties };
}

/** `base` with more properties, each optional (documents only some commands' runs carry). */
function withOptional<
  const P extends Properties,
  const R extends readonly (keyof P & string)[],
  const E extends Properties,
>(base: ObjectSchema<P, R>, extra: E): ObjectSchema<P & E, R> {
  return { ...base, properties: { ...base.properties, ...extra } };
}

/** A schema for a list of `items`. */
function list<const I extends object>(items: I) {
  return { type: "array", items } as const;
}

/** `base` with more properties, all required. */
function extend<
  P extends Properties,
  R extends readonly (keyof P & string)[],
  const E extends Properties,
>(base: ObjectSchema<P, R>, more: E): ObjectSchema<P & E, (R[number] | (keyof E & string))[]> {
  return {
    type: "object",
    required: [...base.required, ...(Object.keys(more) as (keyof E & string)[])],
    properties: { ...base.properties, ...more },
  };
}

/** What `uwf usage --by` groups by. */
export const USAGE_DIMENSIONS = ["thread", "workflow", "role", "agent", "model"] as const;
export type UsageDimension = (typeof USAGE_DIMENSIONS)[number];

/**
 * Builds every schema. It runs on first use (`documentSchemas()`), not at import: protocol is
 * loaded by every uwf process and adapter, and only `--format json` checks and `uwf prompt
 * usage` read these.
 */
function build() {
  // A fork of a race as `thread race` compares it: outcome, output, figures (a crashed or
  // timed-out agent: failed, with its reason).
  const raceForkSchema = withOptional(
    object(
      {
        thread: threadId,
        agent: str,
        status: threadStatus,
        // finished: the step was stored; failed: it was not (the reason says why);
        // interrupted: stopped by a signal; won/lost after `promote`.
        outcome: { enum: ["finished", "failed", "interrupted", "won", "lost", "pending"] },
        // The step the fork stored, its role and output (null: none stored).
        step: nullableHash,
        role: nullableStr,
        output: { anyOf: [{ type: "null" }, { type: "object", additionalProperties: true }] },
        durationMs: { type: ["integer", "null"] },
        usage: { anyOf: [{ type: "null" }, usage] },
      },
      ["thread", "agent", "status", "outcome", "step", "role", "output", "durationMs", "usage"],
    ),
    {
      reason: str,
      worktree: str,
      // Files changed, lines added and removed by the step, when it ran in a git working tree.
      diffStat: object({ files: int, insertions: int, deletions: int }),
    },
  );
  // Long by design: the table of every command's document schema, built in one place on first use.
  // ─── workflow ───────────────────────────────────────────────────────────────────────────────

  /** What `workflow add` and `workflow show` both say about a workflow. */
  const workflowSummary = object(
    { name: str, hash, description: nullableStr, roles: strings, warnings: strings, source: str },
    ["name", "hash", "description", "roles", "warnings"],
  );

  const workflowHistory = object({
    name: str,
    current: hash,
    history: list(object({ hash, at: isoTime })),
  });

  /** One recorded thread run again by `uwf workflow test`, and how its route compares. */
  const routeStep = object({ role: str, status: str });
  const workflowTestThreadSchema = withOptional(
    object({
      // The recorded thread, where it came from (`thread <id>`, `<file> thread <id>`), and the
      // thread that re-ran it in the scratch store (null: a fan-out child its parent's replay
      // did not make). A child the replay made with no recorded twin has its own id in both,
      // and origin `replay`.
      thread: threadId,
      origin: str,
      replayThread: { anyOf: [threadId, { type: "null" }] },
      result: { enum: ["same", "different", "miss", "stopped"] },
      // 1-based: the first step that differs, missed or did not run; null when the route is the same.
      step: { type: ["integer", "null"] },
      // Why, in a sentence; "" when the route is the same.
      reason: str,
      recorded: list(routeStep),
      replayed: list(routeStep),
      // On a miss: the role, the prompt's text node, and the nearest recorded prompt of that role.
      miss: {
        anyOf: [
          { type: "null" },
          object({
            role: str,
            prompt: hash,
            nearest: {
              anyOf: [
                { type: "null" },
                object({
                  origin: str,
                  thread: threadId,
                  step: int,
                  hash,
                  differentLines: int,
                  firstDifference: object({ line: int, recorded: str, now: str }),
                }),
              ],
            },
          }),
        ],
      },
    }),
    {
      // A fan-out child: the recorded parent and the child's item (0-based) in that fan-out.
      // Children are listed after their parent, depth first.
      parent: object({ thread: threadId, index: int }),
    },
  );

  // ─── thread ─────────────────────────────────────────────────────────────────────────────────

  const stoppedBecause = { enum: STOPPED_BECAUSE } as const;

  const execStep = object({ hash, role: str, status: str, agent: str, durationMs: int });

  // A fan-out's child as exec and show report it: its id, its item's index and where it stands
  // (exec: completed | failed | waiting | pending; show: the child thread's status, or pending
  // while it is not made yet), with the role and reason when it failed or waits.
  const fanoutChild = object(
    // `title`: absent for a child not made yet, and for children made before uwf kept titles.
    { thread: threadId, index: int, status: str, role: str, reason: str, title: str },
    ["thread", "index", "status"],
  );

  const threadExec = object(
    {
      thread: threadId,
      status: threadStatus,
      stoppedBecause,
      message: str,
      steps: list(execStep),
      // Only when `--background` started a worker.
      pid: int,
      // Only when the thread completed: the rendered prompt of the `$END` edge it took.
      endMessage: str,
      // Only when the run ran a fan-out: per fan-out, its join role and where each child stands.
      fanouts: list(
        object(
          { role: str, children: list(fanoutChild), completed: int, failed: int, waiting: int },
          ["role", "children", "completed", "failed", "waiting"],
        ),
      ),
    },
    ["thread", "status", "stoppedBecause", "message", "steps"],
  );

  const threadListEntry = object(
    {
      thread: threadId,
      // The thread's name (`thread start --title`, else its task's first line); null for threads
      // started before uwf kept one.
      title: nullableStr,
      workflow: str,
      status: threadStatus,
      currentRole: nullableStr,
      createdAt: isoTime,
      // Empty for a corrupt pointer.
      updatedAt: str,
      steps: int,
      // Why a corrupt pointer cannot be read.
      problem: str,
      // The thread whose fan-out made this one (absent for a thread started by hand or forked).
      parent: threadId,
    },
    ["thread", "title", "workflow", "status", "currentRole", "createdAt", "updatedAt", "steps"],
  );

  // ─── step ───────────────────────────────────────────────────────────────────────────────────

  const stepListEntry = withOptional(
    object({
      hash,
      role: str,
      // The output's `$status`.
      status: str,
      agent: str,
      startedAt: isoTime,
      durationMs: int,
      usage,
    }),
    // What the step changed in its git working tree (absent when it ran in none).
    { diffStat: object({ files: int, insertions: int, deletions: int }) },
  );

  // ─── forks and usage ────────────────────────────────────────────────────────────────────────

  /** Usage figures with how many steps did not report a cost (their cost is not in `costUsd`). */
  const usageTotal = extend(usage, { steps: int, unknownCostSteps: int });

  /** One thread of a fork family: where it left its parent's chain. */
  const treeThread = object({
    thread: threadId,
    title: nullableStr,
    workflow: str,
    status: threadStatus,
    head: hash,
    steps: int,
    createdAt: isoTime,
    // The step it was forked at (null for the family's original thread) and that step's place.
    forkedFrom: nullableHash,
    forkStep: { type: ["integer", "null"] },
    forkRole: nullableStr,
    // The thread this one branched from: the family member that owns the fork step; null for a
    // root (the original, or a fork whose parent thread is gone).
    parent: { anyOf: [threadId, { type: "null" }] },
  });

  const diffStep = object({
    number: int,
    hash,
    role: str,
    // The output's `$status`.
    status: str,
    output: { type: "object", additionalProperties: true },
    agent: str,
    startedAt: isoTime,
    durationMs: int,
    usage,
  });

  const diffSide = object({
    thread: threadId,
    head: hash,
    status: threadStatus,
    steps: list(diffStep),
    usage: usageTotal,
  });

  const usageRow = extend(usageTotal, {
    // The value of each `--by` dimension, in the order asked (null: unknown, e.g. no model).
    key: { type: "object", additionalProperties: true },
  });

  // ─── cas ────────────────────────────────────────────────────────────────────────────────────

  const casPut = object({ hash, type: str });

  /** What the store's gc reports; `uwf cas gc` adds the threads that were running. */
  const casGcReportSchema = object({
    dryRun: bool,
    roots: int,
    reachable: int,
    unreachable: list(hash),
    deleted: int,
    bytes: int,
    // Unreachable but written within the grace period (`--keep-recent`), so kept.
    recent: list(hash),
  });

  const casVerifyReportSchema = object({
    checked: int,
    ok: int,
    corrupt: list(object({ hash: str, file: str, problem: str })),
  });

  /** What `uwf thread verify` finds for one thread: steps and nodes checked, problems oldest first. */
  const threadVerifyReportSchema = withOptional(
    object({
      thread: threadId,
      ok: bool,
      head: str,
      steps: int,
      nodes: int,
      problems: list(
        object({
          // The node that is wrong: a hash as stored, which a forged link may have made malformed.
          hash: str,
          // 1 for the thread's first step; null for the StartNode, the workflow or the pointer.
          step: { type: ["integer", "null"] },
          // `git`: a commit or tree a step recorded is not in the repository, or not of its kind.
          kind: { enum: ["corrupt", "missing", "invalid", "link", "route", "git"] },
          reason: str,
        }),
      ),
    }),
    {
      // What the steps' git records say that is no failure: the working tree changed between
      // two steps (docs/receipts.md). Absent when there is nothing to say.
      notes: list(object({ hash, step: int, note: str })),
      // The repository whose objects were looked up; absent when none was.
      repo: str,
    },
  );

  /**
   * Where the moderator sends a thread from one step: a role, `$END` or `$SUSPEND` (`target`),
   * with the rendered edge prompt; or, when routing fails, a null target and the error.
   */
  const routeSchema = object({ target: nullableStr, prompt: nullableStr, error: nullableStr });

  /** What `uwf thread reroute` finds at one step, under the pinned and under the other workflow. */
  const rerouteStepSchema = object({
    step: int,
    hash,
    role: str,
    // The output's `$status` (null when it has none).
    status: nullableStr,
    // Whether the role is in the other workflow at all.
    roleExists: bool,
    // Whether the recorded output validates against the other workflow's role schema.
    valid: bool,
    errors: strings,
    recorded: routeSchema,
    rerouted: routeSchema,
    same: bool,
    // The role of the recorded step after this one (null for the head).
    next: nullableStr,
  });

  /** `uwf thread reroute`: the recorded outputs of a thread routed through another workflow. */
  const threadRerouteReportSchema = object({
    thread: threadId,
    // The workflow the thread is pinned to, and the one it is rerouted through.
    pinned: object({ name: str, hash }),
    workflow: object({ name: str, hash }),
    // True when every route is the same and every output still validates.
    ok: bool,
    routeChanged: bool,
    invalid: int,
    // The StartNode's `$START.new` edge under both workflows.
    start: object({ hash, recorded: routeSchema, rerouted: routeSchema, same: bool }),
    // The first step (0: the StartNode) from which the route differs, or null.
    firstChange: {
      anyOf: [
        { type: "null" },
        object({
          step: int,
          hash,
          role: str,
          next: nullableStr,
          recorded: routeSchema,
          rerouted: routeSchema,
        }),
      ],
    },
    steps: list(rerouteStepSchema),
  });

  /**
   * A route as `uwf thread rebase` compares it: `routeSchema` plus the rendered location and,
   * for a fan-out edge (whose prompt is then the template), its `fanout` spec as written.
   */
  const rebaseRouteSchema = object({
    target: nullableStr,
    prompt: nullableStr,
    location: nullableStr,
    fanout: {
      anyOf: [
        { type: "null" },
        { type: "object", required: ["workflow"], additionalProperties: true },
      ],
    },
    error: nullableStr,
  });

  /** `uwf thread rebase`: which recorded steps a rebase reuses, and where it parts. */
  const threadRebasePlanSchema = object({
    // The thread rebased (it keeps its id and its history).
    thread: threadId,
    // The workflow the thread is pinned to, and the one it is rebased onto.
    pinned: object({ name: str, hash }),
    workflow: object({ name: str, hash }),
    // Both are the same workflow: every step is reused and nothing is written or run.
    sameWorkflow: bool,
    // Steps in the recorded chain.
    steps: int,
    // The recorded steps whose key is unchanged, oldest first (1 is the first step).
    reused: list(object({ step: int, hash, role: str })),
    // The first step whose key changed (`step` is one past the head when only the route from
    // the head changed), and why: its role's changed fields, the edge into it, or both.
    firstChange: {
      anyOf: [
        { type: "null" },
        object({
          step: int,
          // The recorded step there, null past the head.
          hash: nullableHash,
          role: nullableStr,
          // The role (or $START) whose route leads into it.
          from: str,
          roleChange: { anyOf: [{ type: "null" }, object({ role: str, fields: strings })] },
          routeChange: {
            anyOf: [
              { type: "null" },
              object({
                recorded: rebaseRouteSchema,
                rebased: rebaseRouteSchema,
                // The edge prompt's changed lines: `- ` recorded, `+ ` rebased.
                diff: strings,
              }),
            ],
          },
        }),
      ],
    },
  });

  /** One step of `uwf thread grep` with lines that match, in its output, body or prompt. */
  const grepMatchSchema = object({
    thread: threadId,
    step: int,
    hash,
    role: str,
    in: { enum: ["output", "body", "prompt"] },
    lines: list(object({ line: int, text: str })),
  });

  // ─── config, setup, doctor ──────────────────────────────────────────────────────────────────

  /** Any JSON value: a config value (secrets masked). */
  const anyValue = {} as const;

  /** One line of `uwf setup` or `uwf doctor`: what was checked, whether it passed, and why not. */
  const checkResult = withOptional(
    object({
      name: str,
      ok: bool,
      detail: str,
      // What to do when it failed (or warns); null when it passed.
      hint: nullableStr,
    }),
    // true on a check that passed with a doubt (ok stays true: it does not fail doctor).
    { warning: bool },
  );
  // ─── prompt ─────────────────────────────────────────────────────────────────────────────────

  /** A guide of `uwf prompt`: its name and its markdown. */
  const promptText = object({ name: str, text: str });

  // ─── the documents ──────────────────────────────────────────────────────────────────────────

  const DOCUMENT_SCHEMAS = {
    /** On stderr, for any command that fails; an error may add details next to these keys. */
    error: object({
      error: {
        ...object({ code: str, message: str, hint: nullableStr, exitCode: int }),
        additionalProperties: true,
      },
    }),

    "workflow add": extend(workflowSummary, { changed: bool, versions: int }),
    "workflow validate": object({
      valid: bool,
      name: nullableStr,
      hash: nullableHash,
      errors: strings,
      warnings: strings,
      // The errors and warnings again, each with where it is written (line and column null
      // when the place is not known).
      problems: list(
        object({
          severity: { enum: ["error", "warning"] },
          code: str,
          message: str,
          path: { anyOf: [strings, { type: "null" }] },
          file: str,
          line: { type: ["integer", "null"] },
          column: { type: ["integer", "null"] },
        }),
      ),
      source: str,
    }),
    "workflow show": withOptional(
      extend(workflowSummary, {
        path: nullableStr,
        graph: anyObject,
        roleDetails: anyObject,
        // The JSON Schema of the thread inputs the workflow declares; null when it declares none.
        inputs: { anyOf: [{ type: "null" }, anyObject] },
      }),
      // The workflow's triggers (`on:`), only when it declares them.
      { on: anyObject },
    ),
    "workflow list": object({
      workflows: list(object({ name: str, hash, updatedAt: isoTime, versions: int })),
      // Registry entries that cannot be read, listed rather than left out.
      problems: list(object({ name: str, file: str, problem: str })),
    }),
    "workflow history": workflowHistory,
    "workflow rollback": workflowHistory,
    "workflow rm": object({ name: str, removed: bool }),
    "workflow test": object({
      workflow: str,
      workflowHash: hash,
      // Every thread re-ran with the same route: the exit code is 0 exactly then.
      ok: bool,
      threads: list(workflowTestThreadSchema),
    }),

    "thread start": withOptional(
      object({
        thread: threadId,
        // The title given with --title, or the one made from the task's first line.
        title: str,
        workflow: str,
        head: hash,
        status: threadStatus,
      }),
      {
        // Only with --event: false when the event had started its thread already (the thread
        // as it is now is reported), the event as the workflow matched it, and its key.
        started: { type: "boolean" },
        event: str,
        key: str,
      },
    ),
    "thread exec": threadExec,
    "thread show": withOptional(
      object({
        thread: threadId,
        // Null for threads started before uwf kept a title.
        title: nullableStr,
        workflow: str,
        workflowHash: hash,
        head: hash,
        status: threadStatus,
        currentRole: nullableStr,
        nextRole: nullableStr,
        suspended: {
          anyOf: [
            { type: "null" },
            object(
              {
                role: str,
                reason: str,
                kind: suspendInfoSchema.properties.kind,
                // `retry`: when the step may run again; `guard`: which guard stopped the thread.
                retryAfter: str,
                guard: suspendInfoSchema.properties.guard,
                // Only when true: the step `thread resume` runs again is a failed poke's, and
                // replaces the head as the poke would have.
                replaceHead: suspendInfoSchema.properties.replaceHead,
              },
              ["role", "reason", "kind"],
            ),
          ],
        },
        steps: int,
        usage,
        // Steps that reported no cost (`usage.costUsd` is then a lower bound); 0 for steps run
        // before uwf kept the count.
        unknownCostSteps: int,
        cwd: str,
        // The agent remembered from the last --agent; null when config.yaml decides.
        agent: nullableStr,
        createdAt: isoTime,
        updatedAt: isoTime,
        lockHolder: { anyOf: [{ type: "null" }, object({ pid: int, since: str })] },
        // The thread's typed inputs (its StartNode's); null when the workflow declares none.
        inputs: { anyOf: [{ type: "null" }, anyObject] },
        // The thread's own git worktree and branch; null when it runs in its cwd as it is.
        worktree: {
          anyOf: [
            { type: "null" },
            // `present`: the folder still exists (`thread cancel` or `cleanup` may have removed it).
            object({ path: str, branch: str, repo: str, base: str, present: bool }),
          ],
        },
      }),
      {
        // A fan-out's child: the parent thread, its step that fanned out, and the item's index.
        parent: object({ thread: threadId, step: hash, index: int }),
        // While the thread's fan-out is pending or suspended: each child, in item order.
        children: list(fanoutChild),
        // Made by `thread rebase`: the thread rebased, and its last step this one reuses.
        rebasedFrom: object({ thread: threadId, step: hash }),
        // Notes from `thread steer` the next step will take (absent when none wait).
        guidance: list(guidanceNoteSchema),
        // A fork `thread race` made: its race, the thread raced, its step and agent.
        race: threadRaceSchema,
        // The races of this thread, each with its forks (absent when it was never raced).
        races: list(
          object({
            race: threadId,
            at: hash,
            forks: list(
              object({ thread: threadId, agent: str, status: threadStatus, outcome: str }),
            ),
          }),
        ),
        // The last `thread race promote` that moved this thread to a fork's head.
        promotedFrom: threadPromotionSchema,
      },
    ),
    // `total`: on a last page, with `--count`, or with `--hide-children` (which reads them all).
    "thread list": object({ threads: list(threadListEntry), more: bool, total: int }, [
      "threads",
      "more",
    ]),
    "thread read": object({
      thread: threadId,
      markdown: str,
      more: bool,
      // The oldest step shown, to page back with `--before`; null when reading from the start.
      oldestShown: nullableHash,
    }),
    "thread tree": object(
      {
        thread: threadId,
        // The StartNode every thread of the family begins with.
        start: hash,
        threads: list(treeThread),
        // The threads the family's fan-outs made, and theirs (absent when there are none).
        children: list(
          object({
            thread: threadId,
            // The thread whose fan-out made it, and the item it got.
            parent: threadId,
            index: int,
            title: nullableStr,
            workflow: str,
            status: threadStatus,
            steps: int,
          }),
        ),
      },
      ["thread", "start", "threads"],
    ),
    "thread diff": object({
      a: threadId,
      b: threadId,
      // The last step both chains hold (null: they part at their first step); its step number.
      common: nullableHash,
      commonSteps: int,
      sides: list(diffSide),
    }),
    "thread resume": threadExec,
    "thread answer": object({
      thread: threadId,
      status: threadStatus,
      // The step the answer was stored as.
      step: execStep,
      // What happens next: the next role, the thread completed, or another question.
      message: str,
    }),
    "thread poke": threadExec,
    "thread steer": object(
      {
        thread: threadId,
        status: threadStatus,
        // Every note waiting for the next step, this one last.
        guidance: list(guidanceNoteSchema),
      },
      ["thread", "status", "guidance"],
    ),
    "thread stop": object({ thread: threadId, stopped: bool, pid: { type: ["integer", "null"] } }),
    "thread cancel": object(
      {
        thread: threadId,
        status: threadStatus,
        // What became of the thread's git worktree (absent when it has none).
        worktree: worktreeRemovalSchema,
        // The children of its pending fan-out that were cancelled with it (absent when none).
        children: list(threadId),
        // What became of those children's own git worktrees (absent when none had one).
        childWorktrees: list(worktreeRemovalSchema),
      },
      ["thread", "status"],
    ),
    "thread cleanup": object(
      {
        thread: threadId,
        // What became of the thread's own worktree (absent when it has none).
        worktree: worktreeRemovalSchema,
        // Its fan-out children's (and theirs) that had ended with a worktree still there.
        children: list(object({ thread: threadId, worktree: worktreeRemovalSchema })),
      },
      ["thread"],
    ),
    "thread join": object({
      thread: threadId,
      status: threadStatus,
      head: hash,
      steps: int,
      suspended: { anyOf: [{ type: "null" }, suspendInfoSchema] },
    }),
    "thread watch": object(
      {
        thread: threadId,
        status: threadStatus,
        head: hash,
        steps: int,
        suspended: { anyOf: [{ type: "null" }, suspendInfoSchema] },
        // Whether a run was going on when the watch began (false: the state was printed at once).
        followed: bool,
        // Only when the thread completed: the rendered prompt of the `$END` edge it took.
        endMessage: str,
      },
      ["thread", "status", "head", "steps", "suspended", "followed"],
    ),

    "thread verify": withOptional(object({ ok: bool, threads: list(threadVerifyReportSchema) }), {
      // `--receipt`: the receipt derived again from the store or `--bundle`, and how it compares.
      receipt: object({
        file: str,
        bundle: nullableStr,
        thread: threadId,
        head: hash,
        ok: bool,
        // Where the receipt differs from the one derived (JSON paths), first ones first.
        differences: strings,
      }),
    }),
    "thread receipt": object({
      thread: threadId,
      head: hash,
      // Where it was written (null: printed).
      file: nullableStr,
      steps: int,
      // The steps that recorded their git working tree.
      gitSteps: int,
      subjects: int,
      statement: anyObject,
    }),
    "thread reroute": threadRerouteReportSchema,
    "thread rebase": withOptional(
      extend(threadRebasePlanSchema, {
        dryRun: bool,
        // The thread made (null on a dry run, or when nothing changed), and the recorded fan-out
        // children rebased with it (its fan-out's child workflow was edited).
        rebased: {
          anyOf: [
            { type: "null" },
            object({
              thread: threadId,
              start: hash,
              head: hash,
              children: list(
                object({
                  thread: threadId,
                  from: threadId,
                  workflow: hash,
                  reused: int,
                  firstChange: { type: ["integer", "null"] },
                }),
              ),
            }),
          ],
        },
      }),
      // What the rebased thread ran from where it parted (absent when it ran nothing).
      { run: threadExec },
    ),
    "thread race": withOptional(
      object(
        {
          // The thread raced (or, for `promote`, the thread that now goes on from the winner).
          thread: threadId,
          race: threadId,
          // The step the forks were made at.
          at: hash,
          forks: list(raceForkSchema),
        },
        ["thread", "race", "at", "forks"],
      ),
      {
        // `promote`: the fork that won, the thread's new head, and the promotion recorded.
        promoted: threadId,
        head: hash,
        promotedFrom: threadPromotionSchema,
      },
    ),
    "thread grep": object({
      pattern: str,
      fixedStrings: bool,
      ignoreCase: bool,
      // Whether the pattern ran on V8's linear-time engine (false: the backtracking one).
      linear: bool,
      in: list({ enum: ["outputs", "bodies", "prompts"] }),
      // Threads and distinct steps searched, and nodes read (each once, however many share it).
      threads: int,
      steps: int,
      nodes: int,
      matches: list(grepMatchSchema),
    }),
    "thread export": object({ file: str, threads: list(threadId), nodes: int, bytes: int }),
    "thread trace": object({
      thread: threadId,
      // The trace's id (32 hex digits), derived from the thread's StartNode (a fan-out child's:
      // its top parent's), so every export of the thread names the same trace.
      traceId: str,
      // The threads whose spans it holds: the thread and its fan-out children.
      threads: list(threadId),
      spans: int,
      // Where it went: the file written, or the OTLP endpoint it was sent to (null: neither).
      file: nullableStr,
      endpoint: nullableStr,
      protocol: { enum: ["http/json", "http/protobuf"] },
      bytes: int,
    }),
    "thread import": object({
      threads: list(
        object(
          {
            thread: threadId,
            // The thread's head and step count here after the import.
            head: hash,
            steps: int,
            // imported: new here; fast-forwarded: the bundle's chain went on from this store's;
            // unchanged: at the same step already; ahead: this store's went further.
            status: { enum: ["imported", "unchanged", "fast-forwarded", "ahead"] },
            // Where the thread runs here (the bundle's cwd is another machine's).
            cwd: str,
            // fast-forwarded: the head this store had.
            from: hash,
            // fast-forwarded: steps taken; ahead: steps this store has beyond the bundle.
            by: int,
            // unchanged: the bundle's status when it is not this store's (which is kept).
            bundleStatus: { enum: ["idle", "suspended", "completed", "cancelled"] },
            // What of the bundle's pointer was not taken: its remembered agent command, its
            // cwd, its git worktree, a suspension's location outside the thread's cwd.
            dropped: object({ agent: str, cwd: str, worktree: str, location: str }, []),
          },
          ["thread", "head", "steps", "status", "cwd"],
        ),
      ),
      // Workflows of the threads taken whose roles run commands of their own (`run:`).
      scripts: list(object({ workflow: str, hash, roles: strings })),
      // Nodes in the bundle, and how many this store did not have.
      nodes: int,
      nodesWritten: int,
    }),

    "step list": object({ thread: threadId, workflow: str, steps: list(stepListEntry) }),
    "step show": extend(
      // `git`: the working tree before and after the step, when it ran in one.
      { type: "object", required: stepSchema.required, properties: step2Schema.properties },
      {
        hash,
        // startedAtMs and completedAtMs as ISO 8601 (DESIGN §13: times are ISO strings).
        startedAt: str,
        completedAt: str,
        // The step's output node, read for convenience.
        outputValue: { ...anyObject, additionalProperties: true },
      },
    ),
    "step read": object({ hash, markdown: str }),
    "step fork": object(
      {
        thread: threadId,
        forkedFrom: hash,
        // The fork's own git worktree, when the thread forked from has one.
        worktree: object({ path: str, branch: str, repo: str, base: str }),
      },
      ["thread", "forkedFrom"],
    ),

    "cas get": object({ hash, type: str, payload: {} }),
    "cas put": casPut,
    "cas put-text": object({ hash, type: hash }),
    "cas has": object({ hash, exists: bool }),
    "cas refs": object({ hash, refs: list(hash) }),
    "cas walk": object({ root: hash, nodes: list(object({ hash, type: str, depth: int })) }),
    "cas verify": casVerifyReportSchema,
    "cas gc": extend(casGcReportSchema, {
      // Threads whose exec held its lock: `--yes` refuses while there are any.
      running: list(object({ thread: threadId, pid: int, command: str, since: str })),
    }),

    "store migrate": object({
      from: str,
      to: str,
      /** Nodes copied (every one re-hashed on both sides), and how many were new there. */
      nodes: int,
      nodesWritten: int,
      threads: int,
      /** Threads already in the target with the same pointer. */
      threadsSkipped: int,
      workflows: int,
      workflowsSkipped: int,
    }),

    "store reindex": object({
      store: str,
      /** Whether the store keeps an index of its own (the filesystem; PostgreSQL's is the database's). */
      indexed: bool,
      /** Threads the rebuilt index holds (0 when not indexed). */
      threads: int,
    }),

    "config list": object({
      file: str,
      exists: bool,
      // Every leaf value with its dotted key, in file order; secrets masked.
      settings: list(object({ key: str, value: anyValue })),
    }),
    "config get": object({ file: str, key: str, value: anyValue }),
    "config set": object({ file: str, key: str, value: anyValue }),
    "config unset": object({ file: str, key: str, removed: bool }),
    setup: object({
      file: str,
      saved: bool,
      provider: nullableStr,
      model: nullableStr,
      agent: nullableStr,
      checks: list(checkResult),
    }),
    doctor: object({ ok: bool, checks: list(checkResult) }),
    // Printed when the server stops; `url` without the token (the server is gone by then).
    dashboard: object({ url: str, port: int, requests: int }),
    // Never printed (stdout carried the protocol): what an `uwf mcp` session did.
    mcp: object({ calls: int, runs: int }),

    usage: object({
      since: { anyOf: [isoTime, { type: "null" }] },
      until: { anyOf: [isoTime, { type: "null" }] },
      by: list({ enum: USAGE_DIMENSIONS }),
      rows: list(usageRow),
      total: usageTotal,
    }),
    // What `uwf schedule` prints (it installs nothing): one or more files per target.
    schedule: object({
      target: { enum: ["crontab", "systemd", "github", "kubernetes"] },
      files: list(object({ path: str, content: str })),
    }),
    "log list": object({ files: list(object({ date: str, path: str, bytes: int })) }),
    "log show": object(
      {
        // Absent when there is no log yet.
        file: str,
        events: list({ ...anyObject, additionalProperties: true }),
        // Lines that were not JSON.
        skipped: int,
      },
      ["events", "skipped"],
    ),
    "log clean": object({ deleted: strings }),

    "prompt list": object({ prompts: list(object({ name: str, summary: str })) }),
    completion: object({ shell: str, script: str }),
    "prompt usage": promptText,
    "prompt workflow-authoring": promptText,
    "prompt adapter-developing": promptText,
    "prompt bootstrap": promptText,
  } as const;

  return {
    DOCUMENT_SCHEMAS,
    workflowTestThreadSchema,
    casGcReportSchema,
    casVerifyReportSchema,
    threadVerifyReportSchema,
    threadRerouteReportSchema,
    threadRebasePlanSchema,
    grepMatchSchema,
  };
}

/** Every schema `build` makes, by name (types only: the values come from `documentSchemas()`). */
export type DocumentSchemaSet = ReturnType<typeof build>;
export type DocumentSchemas = DocumentSchemaSet["DOCUMENT_SCHEMAS"];

let built: DocumentSchemaSet | undefined;

/** The JSON Schema of each command's document, keyed by the command's words; built once. */
export function documentSchemas(): DocumentSchemas {
  built ??= build();
  return built.DOCUMENT_SCHEMAS;
}

export type DocumentName = keyof DocumentSchemas;
