import { isAbsolute, join, normalize, relative, sep } from "node:path";
import {
  type CasNode,
  END,
  isThreadId,
  SCHEMA_TYPE,
  START,
  type StartPayload,
  type StepPayload,
  type SuspendInfo,
  type ThreadPointer,
  type ThreadVerifyReport,
  type WorkflowPayload,
} from "@united-workforce/protocol";
import {
  type Cas,
  type CasWrite,
  type Lease,
  pointerProblem,
  type Store,
  validatorCacheDir,
} from "@united-workforce/store";
import { isUwfError, UwfError } from "@united-workforce/util";
import { fastForwardPointer } from "../state/write-pointer.js";
import { takeThread } from "../threads/lease.js";
import { openBundle } from "./bundle.js";
import { checkFanoutParents, existing } from "./import-parents.js";
import { notAtEnd, verifyThread } from "./verify-thread.js";

/** Nodes are written in batches: one round trip per batch on a networked store. */
const BATCH = 500;

export interface ImportOptions {
  /**
   * Where the imported threads run from now on (the importer's choice, like `thread start`'s
   * cwd): a bundle's cwd is a path of the machine it came from, and is never used.
   */
  cwd: string;
}

/**
 * What of a bundle's pointer was not taken: what would run a command or name a place on this
 * machine without the importer's say.
 */
export interface DroppedFields {
  /** The agent the thread remembered (`--agent`): exec chooses one here, as for a new thread. */
  agent?: string;
  /** The bundle's cwd, when the thread runs elsewhere here. */
  cwd?: string;
  /** The path of the git worktree the thread had there. */
  worktree?: string;
  /** A suspension's `location` that is absolute or leaves the thread's cwd. */
  location?: string;
}

export interface ImportedThread {
  thread: string;
  /** The thread's head and step count in this store after the import. */
  head: string;
  steps: number;
  /**
   * `imported` (new here), `fast-forwarded` (the bundle's chain extends this store's),
   * `unchanged` (at the same step already), `ahead` (this store's went further: nothing to take).
   */
  status: "imported" | "unchanged" | "fast-forwarded" | "ahead";
  /** Where the thread runs in this store. */
  cwd: string;
  /** `fast-forwarded`: the head this store had. */
  from?: string;
  /** `fast-forwarded`: steps taken from the bundle; `ahead`: steps this store has beyond it. */
  by?: number;
  /** `unchanged`: the bundle's status, when it is not this store's (this store's is kept). */
  bundleStatus?: ThreadPointer["status"];
  dropped?: DroppedFields;
}

export interface ImportReport {
  threads: ImportedThread[];
  /**
   * The workflows of the threads taken whose roles run commands of their own (`run:`), with
   * those roles: `thread exec` runs them, so the importer should read them first.
   */
  scripts: { workflow: string; hash: string; roles: string[] }[];
  nodes: number;
  nodesWritten: number;
}

/** What importing does to one thread, decided before anything is written. */
type Plan =
  | { kind: "create"; pointer: ThreadPointer; dropped: DroppedFields }
  | {
      kind: "fast-forward";
      here: ThreadPointer;
      pointer: ThreadPointer;
      dropped: DroppedFields;
      by: number;
    }
  | { kind: "unchanged"; here: ThreadPointer; bundleStatus?: ThreadPointer["status"] }
  | { kind: "ahead"; here: ThreadPointer; by: number };

/**
 * Bring a bundle's threads into `store`, all or nothing. Before anything is written: every line
 * must hash to its name; each pointer must be one this store can read, and say what its chain
 * says (workflow name, last role, status and suspension); each thread must verify
 * (`verifyThread`) against the bundle's nodes alone; and a thread already here must either be
 * at the same step, or behind the bundle's (a fast-forward, taken under the thread's lease), or
 * ahead of it (nothing to take). Another history is refused, naming where the two part.
 *
 * Only the chain's state is taken from a pointer: the agent it remembered, its worktree and its
 * cwd are the other machine's, so an imported thread runs in `options.cwd` with this store's
 * agents, and a fast-forwarded one keeps its own.
 */
export async function importBundle(
  store: Store,
  text: string,
  options: ImportOptions,
): Promise<ImportReport> {
  const bundle = openBundle(text, validatorCacheDir(store.home));
  const pointers = checkPointers(bundle.header.threads);
  const byId = new Map(pointers.map((p) => [p.thread, p]));
  const source = { cas: bundle.cas, threads: { get: async (id: string) => byId.get(id)! } };
  const rootCwd = pointers[0]!.cwd;

  const plans: Plan[] = [];
  for (const pointer of pointers) {
    const verified = await verifyThread(source, pointer.thread);
    if (!verified.ok) throw refusal(verified);
    await checkAgainstChain(bundle.cas, pointer);
    const here = await existing(store, pointer.thread);
    const wanted = portable(pointer, here?.cwd ?? placeIn(options.cwd, rootCwd, pointer.cwd));
    plans.push(await relate(store.cas, bundle.cas, here, wanted));
  }
  await checkFanoutParents(pointers, bundle.cas, store);

  const leases = await takeFastForwards(store, plans);
  try {
    let nodesWritten = 0;
    if (plans.some((plan) => plan.kind === "create" || plan.kind === "fast-forward")) {
      nodesWritten = await writeNodes(store, bundle.cas, bundle.nodes);
    }
    for (const plan of plans) {
      if (plan.kind === "create") await store.threads.create(plan.pointer);
      if (plan.kind === "fast-forward") {
        const moved = await fastForwardPointer(store, plan.pointer, plan.here.rev ?? 0);
        if (moved === null) throw changedMeanwhile(plan.here.thread, "import it again");
      }
    }
    return {
      threads: plans.map(reportOf),
      scripts: await scriptRoles(bundle.cas, plans),
      nodes: bundle.nodes.size,
      nodesWritten,
    };
  } finally {
    for (const lease of leases) await lease.release();
  }
}

/**
 * The header's pointers, each one this store could read (every field as the pointer's schema
 * says: `pointerProblem`), and each thread once.
 */
function checkPointers(values: readonly unknown[]): ThreadPointer[] {
  const seen = new Set<string>();
  return values.map((value, index) => {
    const id = (value as { thread?: unknown } | null)?.thread;
    if (!isThreadId(id)) {
      throw invalidPointer(
        `thread ${index + 1} of the bundle's header`,
        `its \`thread\` ${JSON.stringify(id)} is not a thread id`,
      );
    }
    const problem = pointerProblem(value, id);
    if (problem !== null) throw invalidPointer(`thread ${id} in the bundle`, problem);
    if (seen.has(id)) throw invalidPointer(`thread ${id} in the bundle`, "it is listed twice");
    seen.add(id);
    return value as ThreadPointer;
  });
}

/**
 * What the pointer says beyond its chain's hashes must agree with the chain (verified already):
 * the workflow's name, the role that ran last, a status that matches its suspension, a
 * suspension naming a role of the workflow. The pointer's fields each have the type its schema
 * says already (`checkPointers`).
 */
async function checkAgainstChain(cas: Cas, pointer: ThreadPointer): Promise<void> {
  const fail = (problem: string) =>
    invalidPointer(`thread ${pointer.thread} in the bundle`, problem);
  const workflow = await cas.getPayload<WorkflowPayload>(pointer.workflowHash);
  if (pointer.workflow !== workflow.name) {
    throw fail(
      `its pointer names workflow ${JSON.stringify(pointer.workflow)}, but the workflow it is pinned to (${pointer.workflowHash}) is ${JSON.stringify(workflow.name)}`,
    );
  }
  const head =
    pointer.head === pointer.start ? null : await cas.getPayload<StepPayload>(pointer.head, "step");
  const lastRole = head?.role ?? null;
  if (pointer.currentRole !== lastRole) {
    throw fail(
      `its pointer says the last role was ${JSON.stringify(pointer.currentRole)}, but its head ${lastRole === null ? "is the StartNode" : `step ran ${JSON.stringify(lastRole)}`}`,
    );
  }
  const { status, suspended } = pointer;
  if (status === "suspended" && suspended === null) {
    throw fail("its pointer says `suspended` but not why (`suspended` is null)");
  }
  if ((status === "idle" || status === "completed") && suspended !== null) {
    throw fail(`its pointer says \`${status}\` but holds a suspension (role "${suspended.role}")`);
  }
  if (status === "idle") {
    // uwf settles a step that reaches $END in the same write that moves the head to it.
    const start = await cas.getPayload<StartPayload>(pointer.start, "start");
    const inputs = workflow.inputs === undefined ? undefined : (start.inputs ?? {});
    const from =
      head === null
        ? null
        : { role: head.role, output: await cas.getPayload<Record<string, unknown>>(head.output) };
    if (notAtEnd(workflow.graph, from, inputs) === null) {
      throw fail(
        `its pointer says \`idle\`, but ${from === null ? "$START.new" : `its head step's role "${from.role}" answered ${JSON.stringify(from.output.$status)}, which`} leads to ${END}: the thread ended, which uwf records as \`completed\``,
      );
    }
  }
  if (
    suspended !== null &&
    suspended.role !== START &&
    workflow.roles[suspended.role] === undefined
  ) {
    throw fail(
      `its suspension names role ${JSON.stringify(suspended.role)}, which is not in workflow "${workflow.name}"`,
    );
  }
}

/**
 * Where a bundled thread runs here: at the same place relative to the importer's cwd as it was
 * to the exported thread's (a fan-out child in a subfolder stays in that subfolder), else in the
 * importer's cwd itself. Nothing of the bundle's path is kept but a relative part that stays
 * inside.
 */
function placeIn(cwd: string, rootCwd: string, threadCwd: string): string {
  if (!isAbsolute(rootCwd) || !isAbsolute(threadCwd)) return cwd;
  const inside = relative(rootCwd, threadCwd);
  return staysInside(inside) ? join(cwd, inside) : cwd;
}

/** A relative path that names its base folder or a place under it. */
function staysInside(path: string): boolean {
  const normal = normalize(path);
  return !isAbsolute(normal) && normal !== ".." && !normal.startsWith(`..${sep}`);
}

/**
 * The pointer as this store takes it: the chain's state, in `cwd`, without what runs a command
 * or names a place of the other machine (the remembered agent, the worktree, a suspension's
 * location that is not relative and inside). Fields this uwf does not know are not taken.
 */
function portable(
  pointer: ThreadPointer,
  cwd: string,
): { pointer: ThreadPointer; dropped: DroppedFields } {
  const dropped: DroppedFields = {};
  if (pointer.agent !== undefined) dropped.agent = pointer.agent;
  if (pointer.worktree !== undefined) dropped.worktree = pointer.worktree.path;
  if (pointer.cwd !== cwd) dropped.cwd = pointer.cwd;
  let suspended: SuspendInfo | null = pointer.suspended;
  const location = suspended?.location;
  if (typeof location === "string" && !staysInside(location)) {
    dropped.location = location;
    suspended = { ...suspended!, location: null };
  }
  const taken: ThreadPointer = {
    thread: pointer.thread,
    workflow: pointer.workflow,
    workflowHash: pointer.workflowHash,
    start: pointer.start,
    head: pointer.head,
    status: pointer.status,
    currentRole: pointer.currentRole,
    suspended,
    steps: pointer.steps,
    cwd,
    createdAt: pointer.createdAt,
    updatedAt: pointer.updatedAt,
  };
  if (pointer.forkedFrom !== undefined) taken.forkedFrom = pointer.forkedFrom;
  if (pointer.parent !== undefined) {
    const { thread, step, index } = pointer.parent;
    taken.parent = { thread, step, index };
  }
  // Its schema allows no other keys in usage.
  if (pointer.usage !== undefined) taken.usage = pointer.usage;
  if (pointer.unknownCostSteps !== undefined) taken.unknownCostSteps = pointer.unknownCostSteps;
  return { pointer: taken, dropped };
}

/** How the bundle's thread stands to the one here: new, same, behind, ahead, or another history. */
async function relate(
  local: Cas,
  bundled: Cas,
  here: ThreadPointer | null,
  wanted: { pointer: ThreadPointer; dropped: DroppedFields },
): Promise<Plan> {
  const { pointer, dropped } = wanted;
  if (here === null) return { kind: "create", pointer, dropped };
  if (here.start !== pointer.start || here.workflowHash !== pointer.workflowHash) {
    throw anotherHistory(
      pointer.thread,
      `it started from StartNode ${here.start} here and from ${pointer.start} in the bundle, so the two share no step`,
    );
  }
  if (here.head === pointer.head) {
    // The same history: what each store did with it since (cancel, a failed retry) is its own.
    return here.status === pointer.status
      ? { kind: "unchanged", here }
      : { kind: "unchanged", here, bundleStatus: pointer.status };
  }
  if (pointer.steps > here.steps) {
    const by = pointer.steps - here.steps;
    if ((await stepBack(bundled, pointer.head, by, pointer.start)) === here.head) {
      const moved: ThreadPointer = {
        ...here,
        head: pointer.head,
        steps: pointer.steps,
        currentRole: pointer.currentRole,
        status: pointer.status,
        suspended: pointer.suspended,
        updatedAt: pointer.updatedAt,
      };
      if (pointer.usage !== undefined) moved.usage = pointer.usage;
      if (pointer.unknownCostSteps !== undefined) moved.unknownCostSteps = pointer.unknownCostSteps;
      return { kind: "fast-forward", here, pointer: moved, dropped, by };
    }
  } else if (here.steps > pointer.steps) {
    const by = here.steps - pointer.steps;
    if ((await stepBack(local, here.head, by, here.start)) === pointer.head) {
      return { kind: "ahead", here, by };
    }
  }
  throw anotherHistory(pointer.thread, await partingWords(local, here, bundled, pointer));
}

/** The node `count` steps back from `from` (the StartNode when it gets there), null if shorter. */
async function stepBack(
  cas: Cas,
  from: string,
  count: number,
  start: string,
): Promise<string | null> {
  let hash = from;
  for (let i = 0; i < count; i++) {
    if (hash === start) return null;
    hash = (await cas.getPayload<StepPayload>(hash, "step")).prev ?? start;
  }
  return hash;
}

/** Where two chains of one StartNode part: how many steps they share, then what each has. */
async function partingWords(
  local: Cas,
  here: ThreadPointer,
  bundled: Cas,
  pointer: ThreadPointer,
): Promise<string> {
  const ours = await chainOf(local, here.head, here.start);
  const theirs = await chainOf(bundled, pointer.head, pointer.start);
  let shared = 0;
  while (shared < ours.length && shared < theirs.length && ours[shared] === theirs[shared])
    shared++;
  const both =
    shared === 0
      ? `both start from its StartNode ${here.start}`
      : shared === 1
        ? `both have its first step (${theirs[0]})`
        : `both have its first ${shared} steps (up to ${theirs[shared - 1]})`;
  return `${both}, then this store's has ${plural(ours.length - shared, "step")} of its own (head ${here.head}) and the bundle's ${plural(theirs.length - shared, "step")} (head ${pointer.head})`;
}

/** A chain's step hashes, oldest first. */
async function chainOf(cas: Cas, head: string, start: string): Promise<string[]> {
  const hashes: string[] = [];
  for (let hash: string | null = head; hash !== null && hash !== start; ) {
    hashes.push(hash);
    hash = (await cas.getPayload<StepPayload>(hash, "step")).prev;
  }
  return hashes.reverse();
}

/**
 * The lease of every thread to fast-forward, so that no exec runs one while its head moves
 * (THREAD_BUSY, nothing written, when one is running), and each still as it was planned.
 */
async function takeFastForwards(store: Store, plans: readonly Plan[]): Promise<Lease[]> {
  const leases: Lease[] = [];
  try {
    for (const plan of plans) {
      if (plan.kind !== "fast-forward") continue;
      const { thread } = plan.here;
      try {
        leases.push(await takeThread(store, thread, "uwf thread import"));
      } catch (error) {
        if (!isUwfError(error) || error.code !== "THREAD_BUSY") throw error;
        throw new UwfError("THREAD_BUSY", `${error.message}; nothing was imported`, {
          hint: `the bundle goes further than this store's thread ${thread}: wait for its run (\`uwf thread join ${thread}\`), then import again`,
          details: error.details,
          cause: error,
        });
      }
      const now = await store.threads.get(thread);
      if ((now.rev ?? 0) !== (plan.here.rev ?? 0)) {
        throw changedMeanwhile(thread, "nothing was imported; import it again");
      }
    }
    return leases;
  } catch (error) {
    for (const lease of leases) await lease.release();
    throw error;
  }
}

/** Every node of the bundle, written with the refs computed from it: the count that was new. */
async function writeNodes(
  store: Store,
  bundled: Cas,
  nodes: ReadonlyMap<string, Uint8Array>,
): Promise<number> {
  let written = 0;
  let batch: CasWrite[] = [];
  for (const [hash, bytes] of nodes) {
    const node = await bundled.get(hash);
    const refs = node.type === SCHEMA_TYPE ? [] : await bundled.refsOf(node as CasNode);
    batch.push({ hash, bytes, type: node.type, refs });
    if (batch.length >= BATCH) {
      written += (await store.cas.backend.write(batch)).size;
      batch = [];
    }
  }
  if (batch.length > 0) written += (await store.cas.backend.write(batch)).size;
  return written;
}

function reportOf(plan: Plan): ImportedThread {
  const after = plan.kind === "create" || plan.kind === "fast-forward" ? plan.pointer : plan.here;
  const entry: ImportedThread = {
    thread: after.thread,
    head: after.head,
    steps: after.steps,
    status: STATUS[plan.kind],
    cwd: after.cwd,
  };
  if (plan.kind === "fast-forward") {
    entry.from = plan.here.head;
    entry.by = plan.by;
  }
  if (plan.kind === "ahead") entry.by = plan.by;
  if (plan.kind === "unchanged" && plan.bundleStatus !== undefined) {
    entry.bundleStatus = plan.bundleStatus;
  }
  if ((plan.kind === "create" || plan.kind === "fast-forward") && hasAny(plan.dropped)) {
    entry.dropped = plan.dropped;
  }
  return entry;
}

const STATUS = {
  create: "imported",
  "fast-forward": "fast-forwarded",
  unchanged: "unchanged",
  ahead: "ahead",
} as const satisfies Record<Plan["kind"], ImportedThread["status"]>;

function hasAny(dropped: DroppedFields): boolean {
  return Object.keys(dropped).length > 0;
}

/**
 * The workflows of the threads taken, and those their fan-outs start, whose roles run commands
 * (`run:`): each once.
 */
async function scriptRoles(cas: Cas, plans: readonly Plan[]): Promise<ImportReport["scripts"]> {
  const queue = plans.flatMap((plan) =>
    plan.kind === "create" || plan.kind === "fast-forward" ? [plan.pointer.workflowHash] : [],
  );
  const seen = new Set(queue);
  const scripts: ImportReport["scripts"] = [];
  while (queue.length > 0) {
    const hash = queue.shift()!;
    const workflow = await cas.getPayload<WorkflowPayload>(hash);
    const roles = Object.entries(workflow.roles)
      .filter(([, role]) => role.run !== undefined)
      .map(([name]) => name);
    if (roles.length > 0) scripts.push({ workflow: workflow.name, hash, roles });
    for (const edges of Object.values(workflow.graph)) {
      for (const edge of Object.values(edges ?? {})) {
        const child = edge?.fanout?.workflow;
        if (child !== undefined && !seen.has(child) && (await cas.has(child))) {
          seen.add(child);
          queue.push(child);
        }
      }
    }
  }
  return scripts;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function invalidPointer(what: string, problem: string): UwfError {
  return new UwfError("BUNDLE_INVALID", `${what}: ${problem}; nothing was imported`, {
    hint: "a bundle's header is written by `uwf thread export`, not by hand: export the thread again from its store",
  });
}

function refusal(report: ThreadVerifyReport): UwfError {
  const first = report.problems[0]!;
  const where = first.step === null ? "" : ` (step ${first.step})`;
  return new UwfError(
    "BUNDLE_INVALID",
    `thread ${report.thread} in the bundle does not verify: node ${first.hash}${where}: ${first.reason}; nothing was imported`,
    {
      hint: "export the thread again from a store where `uwf thread verify` passes",
      details: { thread: report.thread, problems: report.problems },
    },
  );
}

function anotherHistory(thread: string, where: string): UwfError {
  return new UwfError(
    "THREAD_EXISTS",
    `thread ${thread} exists here with another history: ${where}; nothing was imported`,
    {
      hint: `this store's thread stays as it is (\`uwf thread show ${thread}\`); to read the bundle's, import it into a store of its own: UWF_HOME=<empty folder> uwf thread import <file>`,
      details: { thread },
    },
  );
}

function changedMeanwhile(thread: string, what: string): UwfError {
  return new UwfError("THREAD_CONFLICT", `thread ${thread} changed here during the import`, {
    hint: `${what}: the import takes what is still missing, and compares again`,
    details: { thread },
  });
}
