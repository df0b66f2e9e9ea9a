import type { ThreadPointer, WorkflowPayload } from "@united-workforce/protocol";
import { Cas, type CasBackend, type Store } from "@united-workforce/store";
import { hashBytes, isoTime, UwfError } from "@united-workforce/util";

/**
 * A thread bundle: one text file that carries threads to another store or machine. Line 1 is
 * the header (JSON): the format, its version and the threads' pointers. Every further line is
 * one node: its hash, a space, and its exact stored bytes (canonical JSON, which holds no
 * newline). The bytes are the node, so an importer re-hashes each line and needs to trust
 * nothing the file says about it.
 */
export const BUNDLE_FORMAT = "uwf-thread-bundle";
export const BUNDLE_VERSION = 1;

export interface BundleHeader {
  format: typeof BUNDLE_FORMAT;
  version: typeof BUNDLE_VERSION;
  exportedAt: string;
  threads: ThreadPointer[];
  nodes: number;
}

/** Nodes read in one round trip while a bundle is written: what it holds of their bytes at once. */
const EXPORT_BATCH = 500;

/**
 * The bundle of `ids` (a thread and, when asked, its forks): every node their pointers reach
 * (the chain, outputs, bodies, details, prompts, the StartNode, the workflow, every schema, and
 * the step of a bundled parent that each bundled fan-out child hangs off), each once, re-hashed
 * as it is read. Yields the file's lines, header first, as it reads them: the header counts the
 * nodes, so their hashes are found first (`Cas.reachableRefs`: one statement on PostgreSQL),
 * then their bytes are read in batches; what is held is the hashes and one batch, never the
 * bundle (docs/decisions/streaming-export-and-usage-cache.md).
 */
export async function* exportBundle(
  store: Store,
  ids: readonly string[],
  now: Date = new Date(),
): AsyncGenerator<string> {
  const pointers: ThreadPointer[] = [];
  for (const id of ids) {
    const { rev: _rev, ...pointer } = await store.threads.get(id);
    pointers.push(pointer);
  }
  // A thread with no steps has its StartNode for head, and forks share theirs: each once.
  const roots = new Set(pointers.flatMap((p) => [p.head, p.start, p.workflowHash]));
  // The step each fan-out of the bundle followed, which the import checks its children
  // against: in the parent's chain already, unless a poke replaced it there since.
  const bundled = new Set(ids);
  for (const { parent } of pointers) {
    if (parent === undefined || !bundled.has(parent.thread)) continue;
    // A replaced step no pointer reaches may be gone (`cas gc`): the import then says so.
    if (await store.cas.has(parent.step)) roots.add(parent.step);
  }
  const order = await bundleOrder(store.cas, [...roots]);
  const header: BundleHeader = {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    exportedAt: isoTime(now.getTime()),
    threads: pointers,
    nodes: order.length,
  };
  yield JSON.stringify(header);
  for (let from = 0; from < order.length; from += EXPORT_BATCH) {
    const batch = order.slice(from, from + EXPORT_BATCH);
    await store.cas.prefetch(batch);
    for (const hash of batch) {
      const { bytes } = await store.cas.read(hash);
      yield `${hash} ${Buffer.from(bytes).toString("utf8")}`;
    }
  }
}

/**
 * The nodes `roots` reach, in the order bundles have always listed them (depth first, the last
 * ref first), so a bundle's bytes do not depend on the store it came from. A node that is
 * absent stays in the list: reading it says so.
 */
async function bundleOrder(cas: Cas, roots: readonly string[]): Promise<string[]> {
  const refs = await cas.reachableRefs(roots);
  const seen = new Set(roots);
  const stack = [...roots];
  const order: string[] = [];
  while (stack.length > 0) {
    const hash = stack.pop()!;
    order.push(hash);
    for (const ref of refs.get(hash) ?? []) {
      if (!seen.has(ref)) {
        seen.add(ref);
        stack.push(ref);
      }
    }
  }
  return order;
}

/**
 * `ids` followed by every fan-out child of theirs, and the children's children, each once:
 * what `thread export` bundles so that a parent arrives with the threads its join steps and
 * pending fan-outs name. Children are the threads whose pointer names a parent among them
 * (joined, waiting, failed or cancelled alike). The store's pointers are read once, and only
 * when one of the threads' workflows fans out.
 */
export async function withFanoutChildren(store: Store, ids: readonly string[]): Promise<string[]> {
  const family = [...ids];
  const included = new Set(ids);
  const fansOut = async (id: string): Promise<boolean> => {
    const { workflowHash } = await store.threads.get(id);
    const workflow = await store.cas.getPayload<WorkflowPayload>(workflowHash, "workflow");
    return Object.values(workflow.graph).some((edges) =>
      Object.values(edges ?? {}).some((edge) => edge?.fanout !== undefined),
    );
  };
  let anyFansOut = false;
  for (const id of ids) anyFansOut ||= await fansOut(id);
  if (!anyFansOut) return family;
  const byParent = await childrenByParent(store);
  for (let i = 0; i < family.length; i++) {
    for (const { thread: child } of byParent.get(family[i]!) ?? []) {
      if (included.has(child)) continue;
      included.add(child);
      family.push(child);
    }
  }
  return family;
}

/**
 * Every fan-out child of the store by its parent's id (one pass over the pointers): a child
 * names its parent, a parent does not list its children until its join.
 */
export async function childrenByParent(store: Store): Promise<Map<string, ThreadPointer[]>> {
  const byParent = new Map<string, ThreadPointer[]>();
  for await (const { pointer } of store.threads.all()) {
    const parent = pointer?.parent?.thread;
    if (parent === undefined) continue;
    const children = byParent.get(parent) ?? [];
    children.push(pointer!);
    byParent.set(parent, children);
  }
  return byParent;
}

/** A bundle's bytes: its whole text, or its chunks as a file or stdin yields them. */
export type BundleSource = string | AsyncIterable<Uint8Array | string>;

/**
 * How much of a bundle is read before giving up: the longest line and the whole. A bundle is
 * checked whole before anything is written, so it is held in memory; these bounds keep
 * `/dev/zero` or an endless line from filling it.
 */
export interface BundleLimits {
  maxLineBytes: number;
  maxTotalBytes: number;
}

const MIB = 1024 * 1024;

/** Far above any real thread's node (an output is at most 8 MiB) or bundle. */
export const DEFAULT_BUNDLE_LIMITS: Readonly<BundleLimits> = {
  maxLineBytes: 64 * MIB,
  maxTotalBytes: 1024 * MIB,
};

/**
 * A bundle read in memory, without writing anything: its header and a read-only CAS over its
 * nodes (each re-hashed), with a `threads.get` for its pointers. `uwf-replay --from <file>`
 * reads recordings this way.
 */
export async function openBundle(
  source: BundleSource,
  validatorCacheDirectory: string,
  limits: BundleLimits = DEFAULT_BUNDLE_LIMITS,
): Promise<{
  header: BundleHeader;
  cas: Cas;
  threads: { get(id: string): Promise<ThreadPointer> };
  /** Each node's exact bytes by hash, as the file holds them. */
  nodes: ReadonlyMap<string, Uint8Array>;
}> {
  const { header, nodes } = await parseBundle(source, limits);
  const cas = new Cas(memoryBackend(nodes), { validatorCacheDir: validatorCacheDirectory });
  const threads = {
    get: async (id: string): Promise<ThreadPointer> => {
      const pointer = header.threads.find((t) => t?.thread === id);
      if (!pointer) {
        throw new UwfError("THREAD_NOT_FOUND", `the bundle has no thread ${id}`, {
          hint: "list its threads with `head -1 <file>`",
        });
      }
      return pointer;
    },
  };
  return { header, cas, threads, nodes };
}

/**
 * The header and the nodes of a bundle, each node's bytes checked against its name as its line
 * arrives, within `limits`: a damaged or endless input stops at the line that shows it.
 */
export async function parseBundle(
  source: BundleSource,
  limits: BundleLimits = DEFAULT_BUNDLE_LIMITS,
): Promise<{
  header: BundleHeader;
  nodes: Map<string, Uint8Array>;
}> {
  const lines = bundleLines(source, limits)[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done || isBlank(first.value)) {
    for (let next = await lines.next(); !next.done; next = await lines.next()) {
      if (!isBlank(next.value)) throw notABundle("its first line is not JSON");
    }
    throw notABundle("the file is empty");
  }
  const header = readHeader(first.value);
  const nodes = new Map<string, Uint8Array>();
  let number = 1;
  for (let next = await lines.next(); !next.done; next = await lines.next()) {
    number++;
    const line = next.value;
    const space = line.indexOf(0x20);
    const name = (space === -1 ? line : line.subarray(0, space)).toString("utf8");
    const bytes = space === -1 ? new Uint8Array(0) : line.subarray(space + 1);
    const actual = hashBytes(bytes);
    if (actual !== name) {
      throw new UwfError(
        "BUNDLE_INVALID",
        `line ${number} of the bundle claims node ${JSON.stringify(name)} but its bytes hash to ${actual}: the bundle was altered or damaged; nothing was imported`,
        { hint: "export the thread again from its store", details: { line: number, node: name } },
      );
    }
    nodes.set(name, bytes);
  }
  return { header, nodes };
}

function readHeader(line: Buffer): BundleHeader {
  let header: BundleHeader;
  try {
    header = JSON.parse(line.toString("utf8"));
  } catch {
    throw notABundle("its first line is not JSON");
  }
  if (header?.format !== BUNDLE_FORMAT)
    throw notABundle(`it does not say "format": "${BUNDLE_FORMAT}"`);
  if (header.version !== BUNDLE_VERSION) {
    throw new UwfError(
      "BUNDLE_INVALID",
      `the bundle is version ${JSON.stringify(header.version)}; this uwf reads version ${BUNDLE_VERSION}`,
      { hint: "export it again with this uwf's version, or upgrade uwf" },
    );
  }
  if (!Array.isArray(header.threads) || header.threads.length === 0) {
    throw notABundle("its header lists no threads");
  }
  return header;
}

/**
 * The source's lines, without their newline (a last empty line is none), each a copy of its
 * own. A line longer than `maxLineBytes`, or more than `maxTotalBytes` in all, stops the read
 * there, before that much is held.
 */
async function* bundleLines(source: BundleSource, limits: BundleLimits): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let total = 0;
  let number = 1;
  for await (const chunk of typeof source === "string" ? [source] : source) {
    const bytes =
      typeof chunk === "string"
        ? Buffer.from(chunk, "utf8")
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    total += bytes.length;
    if (total > limits.maxTotalBytes)
      throw tooLarge(`the bundle is larger than ${size(limits.maxTotalBytes)}`, "--max-mib");
    let from = 0;
    for (;;) {
      const newline = bytes.indexOf(0x0a, from);
      const to = newline === -1 ? bytes.length : newline;
      pendingBytes += to - from;
      if (pendingBytes > limits.maxLineBytes) {
        throw tooLarge(
          `line ${number} of the bundle is longer than ${size(limits.maxLineBytes)}`,
          "--max-line-mib",
        );
      }
      if (to > from) pending.push(bytes.subarray(from, to));
      if (newline === -1) break;
      yield Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      number++;
      from = newline + 1;
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending, pendingBytes);
}

function isBlank(line: Buffer): boolean {
  return line.toString("utf8").trim() === "";
}

function size(bytes: number): string {
  return bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes} bytes`;
}

function tooLarge(what: string, flag: string): UwfError {
  return new UwfError(
    "BUNDLE_TOO_LARGE",
    `${what}: reading stopped there, and nothing was imported`,
    {
      hint: `a bundle made by \`uwf thread export\` has one line per node; if this is one, raise the limit (\`uwf thread import ${flag} <n>\`)`,
    },
  );
}

function notABundle(why: string): UwfError {
  return new UwfError("BUNDLE_INVALID", `not a bundle made by \`uwf thread export\`: ${why}`, {
    hint: "make one with `uwf thread export <thread> -o <file>`",
  });
}

/** A read-only CAS backend over a bundle's nodes. */
function memoryBackend(nodes: ReadonlyMap<string, Uint8Array>): CasBackend {
  const readOnly = (): never => {
    throw new Error("a bundle's nodes are read-only");
  };
  return {
    read: async (hash) => nodes.get(hash) ?? null,
    write: readOnly,
    remove: readOnly,
    has: async (hash) => nodes.has(hash),
    withPrefix: async (prefix, limit) =>
      [...nodes.keys()].filter((hash) => hash.startsWith(prefix)).slice(0, limit),
    async *list() {
      yield* nodes.keys();
    },
    locate: (hash) => `the bundle's node ${hash}`,
  };
}
