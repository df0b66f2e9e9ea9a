import {
  BUILTIN_SCHEMA_HASHES,
  type BuiltinNodeKind,
  END,
  editionsOf,
  type Graph,
  START,
  type StartPayload,
  type StepPayload,
  SUSPEND,
  type ThreadPointer,
  type ThreadProblem,
  type ThreadVerifyReport,
  type WorkflowPayload,
} from "@united-workforce/protocol";
import type { Cas, ThreadsStore } from "@united-workforce/store";
import { errorMessage } from "@united-workforce/util";
import { evaluate, startOutput } from "../moderator/evaluate.js";
import { expectedRole, type RoutedFrom } from "../moderator/expected-role.js";
import { suspendSchemaHash } from "../steps/verify-step.js";
import { ChainReadAhead, withPrefetchedHeads } from "./batched-walk.js";
import { describeFault, link, NodeChecker, NodeFault } from "./node-checker.js";

/** What verifying reads: a store, or a bundle's nodes and pointers before they are imported. */
export interface VerifySource {
  cas: Cas;
  threads: Pick<ThreadsStore, "get">;
}

/**
 * A StartNode of the thread and the workflow it pins: a rebased thread has two or more, the
 * newest the pointer's, each older one the start of the recorded steps the newer continues.
 */
interface Segment {
  start: string;
  /** What this start continues (a rebased thread's second start), absent on a first start. */
  rebase: StartPayload["rebase"];
  /** The workflow it pins; null when it cannot be read (reported). */
  workflow: WorkflowPayload | null;
  /** The thread's inputs, rendered into edge prompts when routing, as the moderator does. */
  inputs: Record<string, unknown> | undefined;
}

/** A step as the backward walk keeps it: just what routing the step after it needs. */
interface Walked {
  hash: string;
  role: string;
  output: Record<string, unknown> | null;
  /** The start the step belongs to: the moderator routed into it under its workflow. */
  segment: Segment;
}

/**
 * Prove a thread's history: walk the chain from the head to the StartNode, re-hash every node
 * each step reaches (output, body, detail and its turns, prompt, schemas), validate each against
 * its type's schema, check the links (`prev`, `start`, the output's schema is its role's) and
 * that each step's role is the one the moderator routes to from the step before, under the
 * workflow the thread is pinned to (a rebased thread: the steps it shares with the recorded one
 * under theirs, the start changing exactly at the step its StartNode's `rebase.at` names), and,
 * for a thread that says it completed, that its head
 * reaches `$END`. One pass from the head: each step is checked against the
 * older one when that is read, so memory stays flat however long the thread. Reads each node
 * once; writes nothing.
 */
export async function verifyThread(
  store: VerifySource,
  thread: string,
): Promise<ThreadVerifyReport> {
  return verifyPointer(store.cas, await store.threads.get(thread));
}

/**
 * `verifyThread` for every thread of a store, in the order the store lists them, reading the
 * first steps of a group of threads in one round trip (see `withPrefetchedHeads`). A pointer
 * that cannot be read fails the whole run, as reading it alone does.
 */
export async function* verifyAllThreads(
  store: VerifySource & { threads: Pick<ThreadsStore, "all"> },
): AsyncGenerator<ThreadVerifyReport> {
  for await (const { id, pointer } of withPrefetchedHeads(store.cas, store.threads.all())) {
    yield pointer === null
      ? await verifyThread(store, id)
      : await verifyPointer(store.cas, pointer);
  }
}

async function verifyPointer(cas: Cas, pointer: ThreadPointer): Promise<ThreadVerifyReport> {
  const check = new ThreadCheck(cas, pointer);
  // The first stretch of the chain brings the StartNode and the workflow along.
  if (pointer.head !== pointer.start) await check.readAhead.before(pointer.head);
  await check.pinned();
  const { depth, head } = await check.chain();
  check.completion(head);
  // Oldest first: the first is where the history stops being trustworthy.
  const problems = check.problems.sort((a, b) => (a.step ?? 0) - (b.step ?? 0));
  return {
    thread: pointer.thread,
    ok: problems.length === 0,
    head: pointer.head,
    steps: depth,
    nodes: check.checker.count,
    problems,
  };
}

/** One thread's verification: what it read of the thread, and the problems found so far. */
class ThreadCheck {
  readonly checker: NodeChecker;
  readonly readAhead: ChainReadAhead;
  readonly problems: ThreadProblem[] = [];
  /** The thread's own start and workflow (the pointer's); null until `pinned` read them. */
  #pinned: Segment | null = null;
  #suspendSchema: string | undefined;

  constructor(
    private readonly cas: Cas,
    private readonly pointer: ThreadPointer,
  ) {
    this.checker = new NodeChecker(cas);
    this.readAhead = new ChainReadAhead(cas, { whole: true });
  }

  /** A problem at `hash`; steps are numbered from the thread's count as the walk goes back. */
  report(hash: string, depth: number | null, error: unknown): void {
    const step = depth === null ? null : this.pointer.steps - depth;
    this.problems.push({ hash, step, ...describeFault(error) });
  }

  /** The workflow and the StartNode the thread is pinned to, and that they agree. */
  async pinned(): Promise<void> {
    const { pointer } = this;
    this.#pinned = await this.#segment(pointer.start, pointer.workflowHash);
  }

  /**
   * A StartNode and the workflow it pins (`workflowHash`: the one it must pin, the pointer's for
   * the thread's own start), each read and checked once; problems are reported.
   */
  async #segment(hash: string, workflowHash?: string): Promise<Segment> {
    const { checker } = this;
    const start = await checker
      .payload<StartPayload>(hash, editionHashes("start"))
      .catch((error: unknown) => {
        this.report(hash, null, error);
        return null;
      });
    const pins = workflowHash ?? start?.workflow;
    const workflow =
      pins === undefined
        ? null
        : await checker
            .payload<WorkflowPayload>(pins, editionHashes("workflow"))
            .catch((error: unknown) => {
              this.report(pins, null, error);
              return null;
            });
    if (start && start.workflow !== pins) {
      this.report(
        hash,
        null,
        link(`the StartNode's workflow is ${start.workflow}, the thread's ${pins}`),
      );
    }
    return {
      start: hash,
      rebase: start?.rebase,
      workflow,
      inputs: workflow?.inputs === undefined ? undefined : (start?.inputs ?? {}),
    };
  }

  /**
   * Walk the chain from the head back to the StartNode, checking each step and the route into
   * the newer one. `depth`: the steps walked; `head`: the head step as read (null: none).
   */
  async chain(): Promise<{ depth: number; head: Walked | null }> {
    const { pointer } = this;
    const walked = new Set<string>();
    let newer: { walked: Walked; depth: number } | null = null;
    let head: Walked | null = null;
    let hash: string | null = pointer.head === pointer.start ? null : pointer.head;
    let depth = 0;
    let segment = this.#pinned!;
    for (; hash !== null; depth++) {
      if (walked.has(hash)) {
        this.report(hash, depth, link("the chain loops back to this step"));
        break;
      }
      walked.add(hash);
      await this.readAhead.before(hash);
      const step = await this.#step(hash, depth, segment);
      if (step === null) break;
      segment = step.walked.segment;
      if (depth === 0) head = step.walked;
      if (newer) this.#route(step.walked, newer.walked, newer.depth);
      newer = { walked: step.walked, depth };
      hash = step.prev;
    }
    // The walk reached the StartNode: the oldest step must be where $START.new leads.
    if (hash === null && newer) this.#route(null, newer.walked, newer.depth);
    // A rebased thread's start continues a step its chain must reach.
    if (hash === null && segment.rebase !== undefined) {
      const at = newer?.walked.hash ?? pointer.head;
      const fault = link(
        `StartNode ${segment.start} continues step ${segment.rebase.at}, which the chain does not reach`,
      );
      this.report(at, newer?.depth ?? null, fault);
    }
    if (hash === null && pointer.steps !== depth) {
      this.report(
        pointer.head,
        null,
        link(`the thread counts ${pointer.steps} steps, its chain holds ${depth}`),
      );
    }
    return { depth, head };
  }

  /**
   * A sound chain's head must reach $END when the thread says it completed (a problem in the
   * chain is reported alone: what the head leads to rests on it).
   */
  completion(head: Walked | null): void {
    const workflow = this.#pinned?.workflow;
    if (this.pointer.status !== "completed" || this.problems.length > 0 || !workflow) return;
    const why = notAtEnd(workflow.graph, head, this.#pinned!.inputs);
    if (why !== null) {
      const at = head === null ? null : 0;
      const fault = new NodeFault("route", `the thread says "completed", but ${why}`);
      this.report(this.pointer.head, at, fault);
    }
  }

  /**
   * Check one step: its node, its thread, its role in the workflow, its output's type and the
   * nodes it reaches. Null when the step cannot be read (the walk stops there).
   */
  async #step(
    hash: string,
    depth: number,
    newer: Segment,
  ): Promise<{ walked: Walked; prev: string | null } | null> {
    const { checker } = this;
    let step: StepPayload;
    try {
      step = await checker.payload<StepPayload>(hash, BUILTIN_SCHEMA_HASHES.step);
    } catch (error) {
      this.report(hash, depth, error);
      return null;
    }
    let segment = newer;
    if (step.start !== newer.start) {
      // The start changes only where a rebased thread's StartNode says it continues.
      if (newer.rebase?.at === hash && newer.rebase.start === step.start) {
        segment = await this.#segment(step.start);
      } else {
        this.report(
          hash,
          depth,
          link(
            newer.start === this.pointer.start
              ? `its start is ${step.start}, the thread's StartNode is ${newer.start}`
              : `its start is ${step.start}, the StartNode of the steps after it is ${newer.start}`,
          ),
        );
      }
    }
    const current: Walked = { hash, role: step.role, output: null, segment };
    const workflow = segment.workflow;
    const role = workflow?.roles[step.role];
    if (workflow && !role) {
      this.report(
        hash,
        depth,
        link(`role "${step.role}" is not in the thread's workflow "${workflow.name}"`),
      );
    }
    try {
      const output = await checker.node(step.output);
      // An agent's `$SUSPEND` answer is typed by the suspend schema, valid for every role.
      if (role && output.type !== role.frontmatter && output.type !== this.#suspendType()) {
        throw link(
          `node ${step.output} has type ${output.type}, expected ${role.frontmatter} (role "${step.role}"'s frontmatter schema) or the $SUSPEND output's`,
        );
      }
      current.output = output.payload as Record<string, unknown>;
    } catch (error) {
      this.report(step.output, depth, error);
    }
    // Body, detail (and its turns), prompt: once each per thread, as steps share them.
    for (const ref of [step.body, step.detail, step.assembledPrompt]) {
      for (const fault of await checker.tree(ref)) this.report(fault.hash, depth, fault.error);
    }
    return { walked: current, prev: step.prev };
  }

  /**
   * The moderator routes from `older` (null: the StartNode) to `step`'s role, under the
   * workflow of `step`'s start (a rebased thread's first new step: the edited one).
   */
  #route(older: Walked | null, step: Walked, at: number): void {
    const { workflow, inputs } = step.segment;
    if (workflow === null) return;
    const expected = expectedRole(workflow.graph, older, inputs);
    if (expected.role !== null && expected.role !== step.role) {
      const fault = new NodeFault("route", `role "${step.role}" ran, but ${expected.why}`);
      this.report(step.hash, at, fault);
    }
  }

  #suspendType(): string {
    this.#suspendSchema ??= suspendSchemaHash(this.cas);
    return this.#suspendSchema;
  }
}

/**
 * Why the moderator would not end a thread at its head (null when it would): the route from the
 * head step (null: the StartNode), read as the engine reads it when it settles a step.
 */
export function notAtEnd(
  graph: Graph,
  head: RoutedFrom | null,
  inputs: Record<string, unknown> | undefined,
): string | null {
  // An output that cannot be read is reported as such; there is no route to compare.
  if (head !== null && head.output === null) return null;
  const from =
    head === null
      ? "$START.new"
      : `"${head.role}" answered ${JSON.stringify(head.output!.$status)}, which`;
  let next: ReturnType<typeof evaluate>;
  try {
    next =
      head === null
        ? evaluate(graph, START, startOutput("new"), inputs)
        : evaluate(graph, head.role, head.output!, inputs);
  } catch (error) {
    return `its head cannot be routed: ${errorMessage(error)}`;
  }
  if (next.kind === "end") return null;
  const to = next.kind === "suspend" ? SUSPEND : `"${next.role}"`;
  return `${from} leads to ${to}, not to ${END}`;
}

/** The schema hashes of every edition of a built-in kind: a thread may use any of them. */
function editionHashes(kind: BuiltinNodeKind): string[] {
  return editionsOf(kind).map((edition) => BUILTIN_SCHEMA_HASHES[edition]);
}
