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
import { type GitCheckOptions, type RecordedGit, withGitChecks } from "../receipts/verify-git.js";
import { suspendSchemaHash } from "../steps/verify-step.js";
import { ChainReadAhead, withPrefetchedHeads } from "./batched-walk.js";
import { describeFault, link, NodeChecker, NodeFault } from "./node-checker.js";

/** What verifying reads: a store, or a bundle's nodes and pointers before they are imported. */
export interface VerifySource {
  cas: Cas;
  threads: Pick<ThreadsStore, "get">;
}

/** A step as the backward walk keeps it: just what routing the step after it needs. */
interface Walked {
  hash: string;
  role: string;
  output: Record<string, unknown> | null;
}

/**
 * Prove a thread's history: walk the chain from the head to the StartNode, re-hash every node
 * each step reaches (output, body, detail and its turns, prompt, schemas), validate each against
 * its type's schema, check the links (`prev`, `start`, the output's schema is its role's) and
 * that each step's role is the one the moderator routes to from the step before, under the
 * workflow the thread is pinned to, and, for a thread that says it completed, that its head
 * reaches `$END`. One pass from the head: each step is checked against the
 * older one when that is read, so memory stays flat however long the thread. Reads each node
 * once; writes nothing.
 */
export async function verifyThread(
  store: VerifySource,
  thread: string,
  git?: GitCheckOptions,
): Promise<ThreadVerifyReport> {
  return verifyPointer(store.cas, await store.threads.get(thread), git);
}

/**
 * `verifyThread` for every thread of a store, in the order the store lists them, reading the
 * first steps of a group of threads in one round trip (see `withPrefetchedHeads`). A pointer
 * that cannot be read fails the whole run, as reading it alone does.
 */
export async function* verifyAllThreads(
  store: VerifySource & { threads: Pick<ThreadsStore, "all"> },
  git?: GitCheckOptions,
): AsyncGenerator<ThreadVerifyReport> {
  for await (const { id, pointer } of withPrefetchedHeads(store.cas, store.threads.all())) {
    yield pointer === null
      ? await verifyThread(store, id, git)
      : await verifyPointer(store.cas, pointer, git);
  }
}

/** `git`: also check the steps' git records (receipts), where and how it says. */
async function verifyPointer(
  cas: Cas,
  pointer: ThreadPointer,
  git?: GitCheckOptions,
): Promise<ThreadVerifyReport> {
  const check = new ThreadCheck(cas, pointer);
  // The first stretch of the chain brings the StartNode and the workflow along.
  if (pointer.head !== pointer.start) await check.readAhead.before(pointer.head);
  await check.pinned();
  const { depth, head } = await check.chain();
  check.completion(head);
  // Oldest first: the first is where the history stops being trustworthy.
  const problems = check.problems.sort((a, b) => (a.step ?? 0) - (b.step ?? 0));
  const report = {
    thread: pointer.thread,
    ok: problems.length === 0,
    head: pointer.head,
    steps: depth,
    nodes: check.checker.count,
    problems,
  };
  return git === undefined ? report : withGitChecks(report, pointer.cwd, check.gitRecords, git);
}

/** One thread's verification: what it read of the thread, and the problems found so far. */
class ThreadCheck {
  readonly checker: NodeChecker;
  readonly readAhead: ChainReadAhead;
  readonly problems: ThreadProblem[] = [];
  /** What the steps recorded of their git working tree, met on the walk (newest first). */
  readonly gitRecords: RecordedGit[] = [];
  /** The workflow the thread is pinned to; null when it cannot be read (reported). */
  #workflow: WorkflowPayload | null = null;
  /** The thread's inputs, rendered into edge prompts when routing, as the moderator does. */
  #inputs: Record<string, unknown> | undefined;
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
    const { pointer, checker } = this;
    this.#workflow = await checker
      .payload<WorkflowPayload>(pointer.workflowHash, editionHashes("workflow"))
      .catch((error: unknown) => {
        this.report(pointer.workflowHash, null, error);
        return null;
      });
    const start = await checker
      .payload<StartPayload>(pointer.start, editionHashes("start"))
      .catch((error: unknown) => {
        this.report(pointer.start, null, error);
        return null;
      });
    this.#inputs = this.#workflow?.inputs === undefined ? undefined : (start?.inputs ?? {});
    if (start && start.workflow !== pointer.workflowHash) {
      this.report(
        pointer.start,
        null,
        link(`the StartNode's workflow is ${start.workflow}, the thread's ${pointer.workflowHash}`),
      );
    }
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
    for (; hash !== null; depth++) {
      if (walked.has(hash)) {
        this.report(hash, depth, link("the chain loops back to this step"));
        break;
      }
      walked.add(hash);
      await this.readAhead.before(hash);
      const step = await this.#step(hash, depth);
      if (step === null) break;
      if (depth === 0) head = step.walked;
      if (newer) this.#route(step.walked, newer.walked, newer.depth);
      newer = { walked: step.walked, depth };
      hash = step.prev;
    }
    // The walk reached the StartNode: the oldest step must be where $START.new leads.
    if (hash === null && newer) this.#route(null, newer.walked, newer.depth);
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
    const workflow = this.#workflow;
    if (this.pointer.status !== "completed" || this.problems.length > 0 || !workflow) return;
    const why = notAtEnd(workflow.graph, head, this.#inputs);
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
  ): Promise<{ walked: Walked; prev: string | null } | null> {
    const { pointer, checker } = this;
    let step: StepPayload;
    try {
      step = await checker.payload<StepPayload>(hash, editionHashes("step"));
    } catch (error) {
      this.report(hash, depth, error);
      return null;
    }
    const current: Walked = { hash, role: step.role, output: null };
    if (step.git !== undefined) {
      this.gitRecords.push({ hash, step: pointer.steps - depth, git: step.git });
    }
    if (step.start !== pointer.start) {
      this.report(
        hash,
        depth,
        link(`its start is ${step.start}, the thread's StartNode is ${pointer.start}`),
      );
    }
    const workflow = this.#workflow;
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

  /** The moderator routes from `older` (null: the StartNode) to `step`'s role. */
  #route(older: Walked | null, step: Walked, at: number): void {
    if (this.#workflow === null) return;
    const expected = expectedRole(this.#workflow.graph, older, this.#inputs);
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
