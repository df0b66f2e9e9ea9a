/**
 * The store contract: what every command, `createAgent`, the tests and the web view use, and
 * what every backend (the filesystem, PostgreSQL) implements. One factory, `openStore`, is the
 * only way in (see open-store.ts). Everything is asynchronous so a networked backend fits; the
 * filesystem backend answers from synchronous calls inside, which is faster for small files.
 *
 * The layers: a backend implements the primitives below (a pointer swap, a registry entry swap,
 * a lease row) and bytes under a hash (cas/cas-backend.ts); the shared code on top (cas/cas.ts,
 * registry rules, lease rules) validates, retries and words the errors, so both backends behave
 * alike.
 */
import type {
  CasGcDocument,
  CasVerifyDocument,
  StoredThreadStatus,
  ThreadPointer,
} from "@united-workforce/protocol";
import type { Cas } from "./cas/cas.js";
import type { CasBackend } from "./cas/cas-backend.js";

// ─── Threads ────────────────────────────────────────────────────────────────────────────────

export interface ThreadListItem {
  id: string;
  pointer: ThreadPointer | null;
  /** Why the pointer could not be read; the thread shows as `corrupt`. */
  problem: string | null;
  /** A live lease holds the thread (an exec runs it). */
  running: boolean;
}

/** Filters and paging for `threads.list`; threads come newest first (ids are ULIDs). */
export interface ThreadQuery {
  /**
   * Keep threads whose user-visible status is one of these: a stored status, `running` (a live
   * lease) or `corrupt` (an unreadable pointer). Absent: every thread.
   */
  statuses?: readonly string[];
  workflow?: string;
  /**
   * Keep threads whose chain begins at this StartNode: a thread and every fork made from its
   * steps (`step fork` keeps the start), i.e. the threads that share a prefix with it.
   */
  start?: string;
  /** Keep threads whose title holds this text, in any case (threads without a title: none). */
  title?: string;
  /** Created strictly after / before these instants (from the ULID when the pointer is bad). */
  createdAfterMs?: number;
  createdBeforeMs?: number;
  limit?: number;
  offset?: number;
  /** Oldest first (a fleet's claim takes the oldest); newest first otherwise. */
  oldestFirst?: boolean;
  /**
   * Only threads past this id in the list's order: keyset paging, where a thread that leaves
   * the list meanwhile shifts nothing (an offset would skip the one after it).
   */
  after?: string;
  /**
   * Also count every match (`ThreadPage.total`): a pass over every thread the filters keep, so
   * only when a caller needs the number (a page alone costs what it shows).
   */
  count?: boolean;
}

export interface ThreadPage {
  items: ThreadListItem[];
  /** More threads match after this page. */
  more: boolean;
  /** How many threads match the filters, over all pages: only when the query asked (`count`). */
  total?: number;
}

/** Thread pointers, the only mutable state of a thread. */
export interface ThreadsStore {
  /** The pointer; THREAD_NOT_FOUND or THREAD_CORRUPT (naming where it lives) otherwise. */
  get(id: string): Promise<ThreadPointer>;
  exists(id: string): Promise<boolean>;
  /** Thread ids that start with `prefix` (upper-case Base32), sorted, at most `limit`. */
  withPrefix(prefix: string, limit: number): Promise<string[]>;
  /** Store a new pointer (revision 1); THREAD_EXISTS when the id is taken. */
  create(pointer: ThreadPointer): Promise<ThreadPointer>;
  /**
   * Compare-and-swap: store `next` only if the stored pointer's revision is still
   * `expectedRev`. Returns the stored pointer (revision + 1), or null when another writer came
   * first (nothing was written). A missing pointer is THREAD_NOT_FOUND.
   */
  swap(next: ThreadPointer, expectedRev: number): Promise<ThreadPointer | null>;
  list(query?: ThreadQuery): Promise<ThreadPage>;
  /** Every thread, oldest first, unpaged (gc roots, migration). */
  all(): AsyncIterable<ThreadListItem>;
  /**
   * Rebuild the backend's own index of the pointers from the pointers (the filesystem's, see
   * threads/fs-thread-index.ts); null when the backend keeps none (PostgreSQL's indexes are the
   * database's).
   */
  reindex(): Promise<{ threads: number } | null>;
  /** Where a pointer lives, for messages. */
  locate(id: string): string;
}

// ─── Registry ───────────────────────────────────────────────────────────────────────────────

export interface RegistryEntry {
  name: string;
  current: string;
  /** Every version, newest first (a rollback is a new newest item). */
  history: { hash: string; at: string }[];
}

/** A registry entry that could not be read; `scan` reports these instead of failing. */
export interface RegistryProblem {
  name: string;
  /** Where it lives (a file path or a table row). */
  location: string;
  problem: string;
}

/** The primitive a backend gives the registry: read and compare-and-swap one entry. */
export interface RegistryBackend {
  /** The entry, null when absent; REGISTRY_CORRUPT naming the location when unreadable. */
  get(name: string): Promise<RegistryEntry | null>;
  /**
   * Replace the entry only if it still equals `expected` (compared by current hash and history
   * length; null = absent). `next` null removes it. False when another writer came first.
   */
  swap(name: string, expected: RegistryEntry | null, next: RegistryEntry | null): Promise<boolean>;
  /** Remove the entry whatever it holds (an unreadable one too); false when there was none. */
  remove(name: string): Promise<boolean>;
  scan(): Promise<{ entries: RegistryEntry[]; problems: RegistryProblem[] }>;
  locate(name: string): string;
}

/** The name → workflow hash registry with history and rollback. */
export interface RegistryStore {
  get(name: string): Promise<RegistryEntry | null>;
  /** Make `hash` the current version of `name`; the same hash as current changes nothing. */
  add(name: string, hash: string): Promise<{ entry: RegistryEntry; changed: boolean }>;
  /** Make an earlier version current again: `to`, or the newest one that differs. */
  rollback(name: string, to?: string): Promise<RegistryEntry>;
  remove(name: string): Promise<boolean>;
  /**
   * Store an entry exactly as given, history included (copying a store). An identical entry is
   * left alone (false); a different one under the name is refused with STORE_CONFLICT.
   */
  restore(entry: RegistryEntry): Promise<boolean>;
  /** Readable entries, sorted by name. */
  list(): Promise<RegistryEntry[]>;
  scan(): Promise<{ entries: RegistryEntry[]; problems: RegistryProblem[] }>;
}

// ─── Exec leases ────────────────────────────────────────────────────────────────────────────

/** A process as it can be recognised later, from this machine or another. */
export interface HolderIdentity {
  /** The machine (config `host`, or the host name): a holder elsewhere is judged by expiry. */
  host: string;
  pid: number;
  /** Field 22 of /proc/<pid>/stat; null where /proc is absent. */
  startTime: string | null;
}

/** The agent process group an exec runs, so whoever takes a stale lease over can stop it. */
export interface ChildIdentity {
  pid: number;
  pgid: number;
  startTime: string | null;
}

export interface LeaseInfo {
  thread: string;
  token: string;
  holder: HolderIdentity;
  command: string;
  acquiredAt: string;
  /** The lease is void after this instant unless renewed (ISO 8601). */
  expiresAt: string;
  child: ChildIdentity | null;
}

/** A held lease. Renewed in the background until released; `lost` once someone took it. */
export interface Lease {
  readonly thread: string;
  readonly token: string;
  info(): LeaseInfo;
  /** Push the expiry forward; throws LEASE_LOST when the lease is no longer ours. */
  renew(): Promise<void>;
  /** Record (or clear) the agent process group this exec runs. */
  setChild(child: ChildIdentity | null): Promise<void>;
  /** Hand the lease to another process (a background worker), which adopts it. */
  transfer(holder: HolderIdentity): Promise<void>;
  /** Give the lease up if it is still ours; stops renewing. Never throws for a lost lease. */
  release(): Promise<void>;
}

export interface AcquiredLease {
  lease: Lease;
  /** The stale lease this one replaced, so the caller can stop the agent it left running. */
  replaced: LeaseInfo | null;
}

/** Per-thread exec leases: at most one live holder per thread. */
export interface LeaseStore {
  /**
   * Take the thread's lease at once, or fail with THREAD_BUSY naming the live holder. A lease
   * whose holder is gone (same host: its process died; another host: it expired) is taken over.
   */
  acquire(thread: string, options: { command: string }): Promise<AcquiredLease>;
  /** A background worker takes over the lease its parent transferred to it. */
  adopt(thread: string, token: string): Promise<Lease>;
  /** The current lease and whether its holder is alive; null when there is none. */
  read(thread: string): Promise<{ info: LeaseInfo; alive: boolean } | null>;
  /** Threads held by a live lease right now. */
  live(): Promise<Set<string>>;
  /** Remove a lease whose holder is gone (stop on an orphan): the removed lease, else null. */
  clearStale(thread: string): Promise<LeaseInfo | null>;
  /**
   * A fleet worker's claim (`thread exec --next`): take the lease of the oldest runnable thread
   * (see `isRunnable`) that no live holder has, or null when there is none. Two claimers never
   * get the same thread; a lease whose holder is gone is taken over (`replaced`), as `acquire`
   * does. The thread was runnable when the lease was taken.
   */
  claimNext(query: ClaimQuery): Promise<AcquiredLease | null>;
}

/** What a claim takes: the lease's command, and only threads of this workflow when given. */
export interface ClaimQuery {
  command: string;
  workflow?: string;
}

// ─── The store ──────────────────────────────────────────────────────────────────────────────

/** What `openStore` is given: the local root and where the shared state lives. */
export interface StoreOptions {
  /** The local root (`UWF_HOME`): config, `.env`, logs and caches stay here whatever the store. */
  home: string;
  /** `fs` (default: under `home`) or a `postgres://…` URL. */
  url?: string;
  /** This machine's name in lease holders (default: the host name). */
  host?: string;
  /** How long a lease lives without renewal (default 30 s). */
  leaseTtlMs?: number;
  /** How long a PostgreSQL store is waited on (config.yaml `postgres:`); defaults otherwise. */
  timeouts?: Partial<StoreTimeouts>;
  /** Aborting it ends every wait on the store at once (a command's Ctrl-C). */
  signal?: AbortSignal;
  /**
   * The backend packages this program can load; `openStore` calls one only when `url` selects
   * its backend. Without one, such a URL fails with STORE_BACKEND_MISSING.
   */
  backends?: StoreBackends;
}

// ─── Backend packages ───────────────────────────────────────────────────────────────────────

/**
 * How a program loads the backends that live in packages of their own. The caller writes the
 * `import()` (the CLI and agent-kit declare `@united-workforce/store-postgres` as an optional
 * peer), so this package never depends on a package that depends on it.
 */
export interface StoreBackends {
  /** `() => import("@united-workforce/store-postgres")`. */
  postgres?: () => Promise<PostgresBackend>;
}

/** What `openStore` uses of `@united-workforce/store-postgres`. */
export interface PostgresBackend {
  openPostgresParts(url: string, options: BackendPartsOptions): Promise<BackendParts>;
}

export interface BackendPartsOptions {
  /** This machine's name in lease holders. */
  host: string;
  /** How long a lease lives without renewal. */
  leaseTtlMs: number;
  timeouts?: Partial<StoreTimeouts>;
  signal?: AbortSignal;
}

/**
 * Every wait on a store that runs on a server is bounded: a server that stops answering makes a
 * command fail with STORE_UNAVAILABLE instead of hanging it.
 */
export interface StoreTimeouts {
  /** One connection attempt. */
  connectTimeoutMs: number;
  /** Connection attempts before giving up, with a doubling pause between them. */
  connectAttempts: number;
  /** One statement, on the server (`statement_timeout`); the client gives up a little later. */
  statementTimeoutMs: number;
  /** A statement waiting for a lock (`lock_timeout`). */
  lockTimeoutMs: number;
}

/** A backend's primitives, which `openStore` puts under the shared CAS, registry and gc rules. */
export interface BackendParts {
  readonly kind: Store["kind"];
  /** Where it lives, for messages (the URL without its password). */
  readonly location: string;
  readonly host: string;
  readonly cas: CasBackend;
  readonly threads: ThreadsStore;
  readonly registry: RegistryBackend;
  readonly leases: LeaseStore;
  close(): Promise<void>;
}

export interface GcOptions {
  dryRun: boolean;
  /** Keep unreachable nodes written within this many milliseconds (a writer may be mid-way). */
  keepRecentMs?: number;
}

/** Everything uwf keeps, behind one interface. */
export interface Store {
  /** `fs` or `postgres`. */
  readonly kind: "fs" | "postgres";
  /** Where it lives, for messages (a folder, or the URL without its password). */
  readonly location: string;
  readonly home: string;
  /** This machine's name in lease holders. */
  readonly host: string;
  readonly cas: Cas;
  readonly threads: ThreadsStore;
  readonly registry: RegistryStore;
  readonly leases: LeaseStore;
  /**
   * Delete every node no thread or registry entry reaches. Refuses (GC_REFUSED) and deletes
   * nothing when a pointer, an entry or a reachable node cannot be read.
   */
  gc(options: GcOptions): Promise<CasGcDocument>;
  verify(): Promise<CasVerifyDocument>;
  close(): Promise<void>;
}

export type { StoredThreadStatus };
