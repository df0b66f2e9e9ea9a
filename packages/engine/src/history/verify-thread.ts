import {
  BUILTIN_SCHEMA_HASHES,
  type BuiltinNodeKind,
  type CasNode,
  END,
  editionsOf,
  type Graph,
  START,
  type StartPayload,
  type StepPayload,
  SUSPEND,
  type ThreadProblem,
  type ThreadVerifyReport,
  type WorkflowPayload,
} from "@united-workforce/protocol";
import type { Cas, ThreadsStore } from "@united-workforce/store";
import { errorMessage, isUwfError } from "@united-workforce/util";
import { evaluate, startOutput } from "../moderator/evaluate.js";
import { expectedRole, type RoutedFrom } from "../moderator/expected-role.js";
import { suspendSchemaHash } from "../steps/verify-step.js";

/**
 * Why a node is bad. Kinds: `corrupt` (its bytes do not hash to its name or do not decode),
 * `missing` (not stored), `invalid` (its payload breaks its type's schema), `link` (it points
 * where it must not), `route` (the moderator would not have sent the thread to this step's role).
 */
class NodeFault extends Error {
  constructor(
    readonly kind: ThreadProblem["kind"],
    message: string,
  ) {
    super(message);
  }
}

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
): Promise<ThreadVerifyReport> {
  const pointer = await store.threads.get(thread);
  const checker = new NodeChecker(store.cas);
  const problems: ThreadProblem[] = [];
  // Steps are numbered from the thread's count (head = pointer.steps) as the walk goes back.
  const report = (hash: string, depth: number | null, error: unknown): void => {
    const step = depth === null ? null : pointer.steps - depth;
    problems.push({ hash, step, ...describe(error) });
  };

  const workflow = await checker
    .payload<WorkflowPayload>(pointer.workflowHash, editionHashes("workflow"))
    .catch((error: unknown) => {
      report(pointer.workflowHash, null, error);
      return null;
    });
  const start = await checker
    .payload<StartPayload>(pointer.start, editionHashes("start"))
    .catch((error: unknown) => {
      report(pointer.start, null, error);
      return null;
    });
  // Routing renders edge prompts with the thread's inputs, as the moderator does.
  const inputs = workflow?.inputs === undefined ? undefined : (start?.inputs ?? {});
  if (start && start.workflow !== pointer.workflowHash) {
    report(
      pointer.start,
      null,
      link(`the StartNode's workflow is ${start.workflow}, the thread's ${pointer.workflowHash}`),
    );
  }

  let suspendSchema: string | undefined;
  const suspendType = (): string => (suspendSchema ??= suspendSchemaHash(store.cas));

  const walked = new Set<string>();
  let newer: { walked: Walked; depth: number } | null = null;
  // The head as the walk read it: a completed thread's head must reach $END.
  let headStep: Walked | null = null;
  let hash: string | null = pointer.head === pointer.start ? null : pointer.head;
  let depth = 0;
  for (; hash !== null; depth++) {
    if (walked.has(hash)) {
      report(hash, depth, link("the chain loops back to this step"));
      break;
    }
    walked.add(hash);
    let step: StepPayload;
    try {
      step = await checker.payload<StepPayload>(hash, BUILTIN_SCHEMA_HASHES.step);
    } catch (error) {
      report(hash, depth, error);
      break;
    }
    const current: Walked = { hash, role: step.role, output: null };
    if (depth === 0) headStep = current;
    const fail = (error: unknown) => report(current.hash, depth, error);
    if (step.start !== pointer.start) {
      fail(link(`its start is ${step.start}, the thread's StartNode is ${pointer.start}`));
    }
    const role = workflow?.roles[step.role];
    if (workflow && !role) {
      fail(link(`role "${step.role}" is not in the thread's workflow "${workflow.name}"`));
    }
    try {
      const output = await checker.node(step.output);
      // An agent's `$SUSPEND` answer is typed by the suspend schema, valid for every role.
      if (role && output.type !== role.frontmatter && output.type !== suspendType()) {
        throw link(
          `node ${step.output} has type ${output.type}, expected ${role.frontmatter} (role "${step.role}"'s frontmatter schema) or the $SUSPEND output's`,
        );
      }
      current.output = output.payload as Record<string, unknown>;
    } catch (error) {
      report(step.output, depth, error);
    }
    // Body, detail (and its turns), prompt: once each per thread, as steps share them.
    for (const ref of [step.body, step.detail, step.assembledPrompt]) {
      for (const fault of await checker.tree(ref)) report(fault.hash, depth, fault.error);
    }
    if (workflow && newer) checkRoute(workflow.graph, current, newer.walked, newer.depth);
    newer = { walked: current, depth };
    hash = step.prev;
  }
  // The walk reached the StartNode: the oldest step must be where $START.new leads.
  if (hash === null && workflow && newer)
    checkRoute(workflow.graph, null, newer.walked, newer.depth);
  if (hash === null && pointer.steps !== depth) {
    report(
      pointer.head,
      null,
      link(`the thread counts ${pointer.steps} steps, its chain holds ${depth}`),
    );
  }

  // A sound chain's head must reach $END when the thread says it completed (a problem in the
  // chain is reported alone: what the head leads to rests on it).
  if (pointer.status === "completed" && problems.length === 0 && workflow) {
    const why = notAtEnd(workflow.graph, headStep, inputs);
    if (why !== null) {
      const at = headStep === null ? null : 0;
      report(pointer.head, at, new NodeFault("route", `the thread says "completed", but ${why}`));
    }
  }

  function checkRoute(graph: Graph, older: Walked | null, step: Walked, at: number): void {
    const expected = expectedRole(graph, older, inputs);
    if (expected.role !== null && expected.role !== step.role) {
      report(step.hash, at, new NodeFault("route", `role "${step.role}" ran, but ${expected.why}`));
    }
  }

  // Oldest first: the first is where the history stops being trustworthy.
  problems.sort((a, b) => (a.step ?? 0) - (b.step ?? 0));
  return {
    thread: pointer.thread,
    ok: problems.length === 0,
    head: pointer.head,
    steps: depth,
    nodes: checker.count,
    problems,
  };
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

/**
 * Reads nodes, re-hashing them (the CAS does on every read) and validating each against its
 * type's schema. Remembers which hashes passed or failed, not the nodes, so a thread of any
 * length is checked in flat memory.
 */
class NodeChecker {
  readonly #passed = new Set<string>();
  readonly #failed = new Map<string, NodeFault>();

  constructor(private readonly cas: Cas) {}

  get count(): number {
    return this.#passed.size + this.#failed.size;
  }

  /** The payload of a node that must be of type `type`, or one of them (any when undefined). */
  async payload<T>(hash: string, type: string | readonly string[] | undefined): Promise<T> {
    const node = await this.node(hash);
    const types = typeof type === "string" ? [type] : type;
    if (types !== undefined && !types.includes(node.type)) {
      throw new NodeFault(
        "link",
        `node ${hash} has type ${node.type}, expected ${types.join(" or ")}`,
      );
    }
    return node.payload as T;
  }

  /** The faults of `root` and every node it reaches that was not checked before. */
  async tree(root: string): Promise<{ hash: string; error: NodeFault }[]> {
    const faults: { hash: string; error: NodeFault }[] = [];
    const queue = [root];
    while (queue.length > 0) {
      const hash = queue.shift()!;
      if (this.#passed.has(hash) || this.#failed.has(hash)) continue;
      try {
        queue.push(...(await this.cas.refsOf(await this.node(hash))));
      } catch (error) {
        faults.push({ hash, error: error as NodeFault });
      }
    }
    return faults;
  }

  async node(hash: string): Promise<CasNode> {
    const failed = this.#failed.get(hash);
    if (failed) throw failed;
    try {
      const node = await this.#read(hash);
      this.#passed.add(hash);
      return node;
    } catch (error) {
      const fault =
        error instanceof NodeFault ? error : new NodeFault("corrupt", errorMessage(error));
      this.#failed.set(hash, fault);
      throw fault;
    }
  }

  async #read(hash: string): Promise<CasNode> {
    let node: CasNode;
    try {
      node = await this.cas.get(hash);
    } catch (error) {
      if (isUwfError(error) && error.code === "CAS_NOT_FOUND") {
        throw new NodeFault("missing", `node ${hash} is not stored`);
      }
      throw new NodeFault("corrupt", `node ${hash}: ${errorMessage(error)}`);
    }
    if (node.type !== "schema") {
      const { valid, errors } = await this.cas.validate(node.type, node.payload);
      if (!valid) {
        throw new NodeFault("invalid", `node ${hash} breaks its schema: ${errors.join("; ")}`);
      }
    }
    return node;
  }
}

function link(reason: string): NodeFault {
  return new NodeFault("link", reason);
}

function describe(error: unknown): Pick<ThreadProblem, "kind" | "reason"> {
  if (error instanceof NodeFault) return { kind: error.kind, reason: error.message };
  return { kind: "corrupt", reason: errorMessage(error) };
}
