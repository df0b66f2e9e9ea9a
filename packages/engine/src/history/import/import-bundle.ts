import {
  type CasNode,
  SCHEMA_TYPE,
  type ThreadPointer,
  type WorkflowPayload,
} from "@united-workforce/protocol";
import {
  type Cas,
  type CasWrite,
  type Lease,
  type Store,
  validatorCacheDir,
} from "@united-workforce/store";
import { type EventStream, isUwfError, UwfError } from "@united-workforce/util";
import { fastForwardPointer } from "../../state/write-pointer.js";
import { takeThread } from "../../threads/lease.js";
import { type BundleLimits, type BundleSource, openBundle } from "../bundle.js";
import { verifyThread } from "../verify-thread.js";
import { checkAgainstChain, checkPointers, refusal } from "./bundle-pointers.js";
import { checkFanoutParents, existing } from "./fanout-parents.js";
import { type DroppedFields, placeIn, portable } from "./portable.js";
import { type Plan, relate } from "./relate.js";

/** Nodes are written in batches: one round trip per batch on a networked store. */
const BATCH = 500;

export interface ImportOptions {
  /**
   * Where the imported threads run from now on (the importer's choice, like `thread start`'s
   * cwd): a bundle's cwd is a path of the machine it came from, and is never used.
   */
  cwd: string;
  /** How long a line and how large the whole bundle may be (`DEFAULT_BUNDLE_LIMITS`). */
  limits?: BundleLimits;
  /** Where a lock taken over from a gone holder is said (`thread.takeover`). */
  events?: EventStream;
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
  input: BundleSource,
  options: ImportOptions,
): Promise<ImportReport> {
  const bundle = await openBundle(input, validatorCacheDir(store.home), options.limits);
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

  const leases = await takeFastForwards(store, plans, options.events);
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
 * The lease of every thread to fast-forward, so that no exec runs one while its head moves
 * (THREAD_BUSY, nothing written, when one is running), and each still as it was planned.
 */
async function takeFastForwards(
  store: Store,
  plans: readonly Plan[],
  events: EventStream | undefined,
): Promise<Lease[]> {
  const leases: Lease[] = [];
  try {
    for (const plan of plans) {
      if (plan.kind !== "fast-forward") continue;
      const { thread } = plan.here;
      try {
        leases.push(await takeThread(store, thread, "uwf thread import", events));
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

function changedMeanwhile(thread: string, what: string): UwfError {
  return new UwfError("THREAD_CONFLICT", `thread ${thread} changed here during the import`, {
    hint: `${what}: the import takes what is still missing, and compares again`,
    details: { thread },
  });
}
