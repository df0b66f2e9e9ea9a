import { mkdirSync, rmdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { isThreadId } from "@united-workforce/protocol";
import { ioError, isoTime, randomToken, UwfError } from "@united-workforce/util";
import type {
  AcquiredLease,
  ClaimQuery,
  Lease,
  LeaseInfo,
  LeaseStore,
  ThreadsStore,
} from "../api.js";
import {
  codeOf,
  createOnce,
  DIR_MODE,
  delay,
  isMissing,
  listNames,
  unlinkQuietly,
} from "../fs/files.js";
import { claimByScan } from "./claim-scan.js";
import { busyError, lostError } from "./errors.js";
import { FsLease } from "./fs-lease.js";
import { encodeLease, leaseThreadOf, readLeaseFile, replaceFile } from "./lease-file.js";
import { holderAlive, selfHolder } from "./liveness.js";

/** An unparsable lease younger than this may be mid-write (no-hard-link filesystems). */
const WRITING_GRACE_MS = 2_000;
/** A takeover guard older than this was left by a taker that died inside it. */
const GUARD_STALE_MS = 5_000;
/** Retrying never goes on longer than this; reaching it means something keeps interfering. */
const ACQUIRE_DEADLINE_MS = 10_000;

type TakeOver =
  | { kind: "won"; replaced: LeaseInfo | null }
  | { kind: "alive"; info: LeaseInfo }
  | { kind: "retry" };

type Inspection =
  | { kind: "missing" }
  | { kind: "alive"; info: LeaseInfo }
  | { kind: "stale"; info: LeaseInfo | null }
  | { kind: "writing" };

/**
 * Exec leases as files: `<home>/locks/<thread>.lock`, created complete (temp file hard-linked
 * into place) so exactly one creator wins. A holder on this host is alive while its process is
 * (pid + start time, checked at once); a holder on another host (a shared network home) until
 * its lease expires unrenewed.
 */
export class FsLeaseStore implements LeaseStore {
  readonly #dir: string;
  readonly #options: { readonly host: string; ttlMs: number };
  readonly #ttlMs: number;
  /** The pointers a claim looks through (the threads store takes this store in turn). */
  readonly #threads: () => ThreadsStore;

  /** `options.host` is read when a lease needs it (it may be resolved on first read). */
  constructor(
    home: string,
    options: { readonly host: string; ttlMs: number },
    threads: () => ThreadsStore,
  ) {
    this.#dir = join(home, "locks");
    this.#options = options;
    this.#ttlMs = options.ttlMs;
    this.#threads = threads;
  }

  get #host(): string {
    return this.#options.host;
  }

  path(thread: string): string {
    if (!isThreadId(thread)) {
      throw new UwfError("USAGE", `${JSON.stringify(thread)} is not a thread id`, {
        hint: "a thread id is the 26-character ULID printed by `uwf thread start` and `uwf thread list`",
      });
    }
    return join(this.#dir, `${thread}.lock`);
  }

  async acquire(thread: string, options: { command: string }): Promise<AcquiredLease> {
    const path = this.path(thread);
    const now = Date.now();
    const info: LeaseInfo = {
      thread,
      token: randomToken(),
      holder: selfHolder(this.#host),
      command: options.command,
      acquiredAt: isoTime(now),
      expiresAt: isoTime(now + this.#ttlMs),
      child: null,
    };
    const deadline = now + ACQUIRE_DEADLINE_MS;
    for (;;) {
      if (this.#create(path, info)) return { lease: this.#handle(path, info), replaced: null };
      const state = this.#inspect(path);
      if (state.kind === "alive") throw busyError(thread, state.info, this.#host);
      if (state.kind === "stale") {
        const outcome = this.#takeOver(path, info);
        if (outcome.kind === "won") {
          return { lease: this.#handle(path, info), replaced: outcome.replaced };
        }
        if (outcome.kind === "alive") throw busyError(thread, outcome.info, this.#host);
      }
      if (Date.now() > deadline) {
        throw new UwfError(
          "IO",
          `could not take the lease ${path}: it kept changing for ${ACQUIRE_DEADLINE_MS / 1000} s`,
          { hint: "another process may be taking it over; try again" },
        );
      }
      // "missing" retries at once; "writing" and a busy takeover guard settle within milliseconds.
      if (state.kind !== "missing") await delay(10);
    }
  }

  claimNext(query: ClaimQuery): Promise<AcquiredLease | null> {
    return claimByScan(this.#threads(), this, query);
  }

  async adopt(thread: string, token: string): Promise<Lease> {
    const path = this.path(thread);
    const state = readLeaseFile(path, thread, () => this.#host);
    if (state.kind !== "valid" || state.info.token !== token) {
      if (state.kind === "valid" && holderAlive(state.info, this.#host)) {
        throw busyError(thread, state.info, this.#host);
      }
      throw lostError(thread, "the lease this worker was started with is gone");
    }
    const lease = this.#handle(path, state.info);
    await lease.transfer(selfHolder(this.#host));
    return lease;
  }

  async read(thread: string): Promise<{ info: LeaseInfo; alive: boolean } | null> {
    const state = readLeaseFile(this.path(thread), thread, () => this.#host);
    if (state.kind !== "valid") return null;
    return { info: state.info, alive: holderAlive(state.info, this.#host) };
  }

  async live(): Promise<Set<string>> {
    const live = new Set<string>();
    const now = Date.now();
    for (const name of listNames(this.#dir)) {
      if (!name.endsWith(".lock")) continue;
      const thread = name.slice(0, -".lock".length);
      if (!isThreadId(thread)) continue;
      const state = readLeaseFile(join(this.#dir, name), thread, () => this.#host);
      if (state.kind === "valid" && holderAlive(state.info, this.#host, now)) live.add(thread);
    }
    return live;
  }

  async clearStale(thread: string): Promise<LeaseInfo | null> {
    const path = this.path(thread);
    if (this.#inspect(path).kind !== "stale") return null;
    const guard = `${path}.takeover`;
    if (!enterGuard(guard)) return null;
    try {
      const state = this.#inspect(path);
      if (state.kind !== "stale") return null;
      unlinkQuietly(path);
      return state.info;
    } finally {
      leaveGuard(guard);
    }
  }

  #handle(path: string, info: LeaseInfo): FsLease {
    return new FsLease(path, info, this.#host, this.#ttlMs);
  }

  #create(path: string, info: LeaseInfo): boolean {
    // Without hard links a reader may briefly see an empty file: "being written" for
    // WRITING_GRACE_MS. The folder is made when the first create finds it missing.
    try {
      return createOnce(path, encodeLease(info));
    } catch (error) {
      if (!isMissing(error)) throw error;
      try {
        mkdirSync(this.#dir, { recursive: true, mode: DIR_MODE });
      } catch (mkdirError) {
        throw ioError(mkdirError, this.#dir);
      }
      return createOnce(path, encodeLease(info));
    }
  }

  #inspect(path: string): Inspection {
    const thread = leaseThreadOf(path);
    const state = readLeaseFile(path, thread, () => this.#host);
    if (state.kind === "missing") return state;
    if (state.kind === "garbage") {
      return state.ageMs < WRITING_GRACE_MS ? { kind: "writing" } : { kind: "stale", info: null };
    }
    return holderAlive(state.info, this.#host)
      ? { kind: "alive", info: state.info }
      : { kind: "stale", info: state.info };
  }

  /**
   * Replace a stale lease. Only one process at a time may do so (an exclusive `mkdir` guard),
   * and it re-checks inside the guard, so two takers never both win. The file is replaced by a
   * rename, so there is no instant without a lease for a plain create to slip into.
   */
  #takeOver(path: string, info: LeaseInfo): TakeOver {
    const guard = `${path}.takeover`;
    if (!enterGuard(guard)) return { kind: "retry" };
    try {
      // Re-inspected inside the guard: the lease replaced is the one seen here, not before.
      const state = this.#inspect(path);
      if (state.kind === "alive") return { kind: "alive", info: state.info };
      if (state.kind === "writing") return { kind: "retry" };
      if (state.kind === "missing") {
        return this.#create(path, info) ? { kind: "won", replaced: null } : { kind: "retry" };
      }
      replaceFile(path, info);
      return { kind: "won", replaced: state.info };
    } finally {
      leaveGuard(guard);
    }
  }
}

function enterGuard(guard: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      mkdirSync(guard, { mode: DIR_MODE });
      return true;
    } catch (error) {
      // A full disk here fails the takeover as I/O; no guard was made, so none is left.
      if (codeOf(error) !== "EEXIST") throw ioError(error, guard);
    }
    let ageMs: number;
    try {
      ageMs = Date.now() - statSync(guard).mtimeMs;
    } catch {
      continue;
    }
    if (ageMs < GUARD_STALE_MS) return false;
    leaveGuard(guard);
  }
  return false;
}

function leaveGuard(guard: string): void {
  try {
    rmdirSync(guard);
  } catch {
    // Already removed as stale by another taker: nothing left to clean.
  }
}
