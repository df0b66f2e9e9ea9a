import { randomUUID } from "node:crypto";
import { mkdirSync, rmdirSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { isThreadId } from "@united-workforce/protocol";
import { UwfError, writeFileAtomic } from "@united-workforce/util";
import {
  createLockFile,
  encodeLockInfo,
  type LockInfo,
  readLockFile,
  unlinkQuietly,
} from "./lock-file.js";
import { isAlive, type ProcessIdentity, selfIdentity } from "./process-identity.js";
import { sleepSync } from "./sleep.js";
import { stopChildGroup } from "./stop-child.js";

export interface LockHandle {
  readonly path: string;
  readonly token: string;
  info(): LockInfo;
  /** Record (or clear) the adapter process group this exec runs. */
  setChild(child: (ProcessIdentity & { pgid: number }) | null): void;
  /** Hand the lock to another process (a background worker), which then adopts it. */
  transfer(holder: ProcessIdentity): void;
  /** Remove the lock file if it is still this handle's lock. */
  release(): void;
}

/** An unparsable lock younger than this may be mid-write (no-hard-link filesystems). */
const WRITING_GRACE_MS = 2_000;
/** A takeover guard older than this was left by a taker that died inside it. */
const GUARD_STALE_MS = 5_000;
/** Retrying never goes on longer than this; reaching it means something keeps interfering. */
const ACQUIRE_DEADLINE_MS = 10_000;

export function threadLockPath(home: string, threadId: string): string {
  if (!isThreadId(threadId)) {
    throw new UwfError("USAGE", `${JSON.stringify(threadId)} is not a thread id`);
  }
  return join(home, "locks", `${threadId}.lock`);
}

/**
 * Take the lock at `path` at once or fail with THREAD_BUSY; never waits for a live holder.
 * A lock whose holder is dead (or whose file is garbage) is taken over: its recorded child
 * process group is killed first, so two agents never work on one thread.
 */
export function acquireLock(path: string, command: string): LockHandle {
  mkdirSync(dirname(path), { recursive: true });
  const info: LockInfo = {
    token: randomUUID(),
    holder: selfIdentity(),
    acquiredAt: new Date().toISOString(),
    command,
    child: null,
  };
  const deadline = Date.now() + ACQUIRE_DEADLINE_MS;
  for (;;) {
    if (createLockFile(path, info)) return new FileLockHandle(path, info);
    const state = inspect(path);
    if (state.kind === "alive") throw busyError(path, state.info);
    if (state.kind === "stale") {
      const outcome = takeOver(path, info);
      if (outcome === "won") return new FileLockHandle(path, info);
      if (typeof outcome === "object") throw busyError(path, outcome);
    }
    if (Date.now() > deadline) {
      throw new UwfError(
        "IO",
        `could not take the lock ${path}: it kept changing for ${ACQUIRE_DEADLINE_MS / 1000} s`,
        {
          hint: "another process may be taking it over; try again",
        },
      );
    }
    // "missing" retries at once; "writing" and a busy takeover guard settle within milliseconds.
    if (state.kind !== "missing") sleepSync(10);
  }
}

/** A background worker takes over the lock its parent created (and transferred) for it. */
export function adoptLock(path: string, token: string): LockHandle {
  const state = readLockFile(path);
  if (state.kind !== "valid" || state.info.token !== token) {
    if (state.kind === "valid" && isAlive(state.info.holder)) throw busyError(path, state.info);
    throw new UwfError(
      "THREAD_STATE",
      `the lock ${path} is no longer the one this worker was started with`,
      {
        hint: "the exec that started this worker was stopped or taken over; start a new exec",
      },
    );
  }
  const handle = new FileLockHandle(path, state.info);
  handle.transfer(selfIdentity());
  return handle;
}

/** The lock and whether its holder still runs; null when there is no lock or it is garbage. */
export function readLock(path: string): { info: LockInfo; alive: boolean } | null {
  const state = readLockFile(path);
  if (state.kind !== "valid") return null;
  return { info: state.info, alive: isAlive(state.info.holder) };
}

type Inspection =
  | { kind: "missing" }
  | { kind: "alive"; info: LockInfo }
  | { kind: "stale"; info: LockInfo | null }
  | { kind: "writing" };

function inspect(path: string): Inspection {
  const state = readLockFile(path);
  if (state.kind === "missing") return state;
  if (state.kind === "garbage") {
    return state.ageMs < WRITING_GRACE_MS ? { kind: "writing" } : { kind: "stale", info: null };
  }
  return isAlive(state.info.holder)
    ? { kind: "alive", info: state.info }
    : { kind: "stale", info: state.info };
}

/**
 * Replace a stale lock. Only one process at a time may do so (an exclusive `mkdir` guard), and
 * it re-checks inside the guard, so two takers never both win. The lock file is replaced by a
 * rename, so there is no instant without a lock file for a plain `acquireLock` to slip into.
 */
function takeOver(path: string, info: LockInfo): "won" | "retry" | LockInfo {
  const guard = `${path}.takeover`;
  if (!enterGuard(guard)) return "retry";
  try {
    const state = inspect(path);
    if (state.kind === "alive") return state.info;
    if (state.kind === "writing") return "retry";
    if (state.kind === "missing") return createLockFile(path, info) ? "won" : "retry";
    if (state.info?.child) stopChildGroup(state.info.child);
    writeFileAtomic(path, encodeLockInfo(info));
    return "won";
  } finally {
    try {
      rmdirSync(guard);
    } catch {
      // Already removed as stale by another taker: nothing left to clean.
    }
  }
}

function enterGuard(guard: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      mkdirSync(guard);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    let ageMs: number;
    try {
      ageMs = Date.now() - statSync(guard).mtimeMs;
    } catch {
      continue;
    }
    if (ageMs < GUARD_STALE_MS) return false;
    try {
      rmdirSync(guard);
    } catch {
      // Someone else removed it first; try to take it once more.
    }
  }
  return false;
}

function busyError(path: string, holder: LockInfo): UwfError {
  const id = basename(path).replace(/\.lock$/, "");
  const pid = holder.holder.pid;
  const subject = isThreadId(id) ? `thread ${id}` : path;
  return new UwfError(
    "THREAD_BUSY",
    `${subject} is busy: pid ${pid} holds its lock (${holder.command}, since ${holder.acquiredAt})`,
    {
      hint: isThreadId(id)
        ? `wait for it with \`uwf thread join ${id}\` or stop it with \`uwf thread stop ${id}\``
        : "wait for the other process to finish, then try again",
      details: { pid, command: holder.command, since: holder.acquiredAt, lock: path },
    },
  );
}

class FileLockHandle implements LockHandle {
  readonly path: string;
  #info: LockInfo;

  constructor(path: string, info: LockInfo) {
    this.path = path;
    this.#info = structuredClone(info);
  }

  get token(): string {
    return this.#info.token;
  }

  info(): LockInfo {
    return structuredClone(this.#info);
  }

  setChild(child: (ProcessIdentity & { pgid: number }) | null): void {
    this.#rewrite({ ...this.#info, child: child && { ...child } });
  }

  transfer(holder: ProcessIdentity): void {
    this.#rewrite({ ...this.#info, holder: { ...holder } });
  }

  release(): void {
    const state = readLockFile(this.path);
    if (state.kind === "valid" && state.info.token === this.#info.token) unlinkQuietly(this.path);
  }

  #rewrite(next: LockInfo): void {
    const state = readLockFile(this.path);
    if (state.kind !== "valid" || state.info.token !== this.#info.token) {
      throw new UwfError("THREAD_STATE", `the lock ${this.path} was taken over or removed`, {
        hint: "another process considered this one dead and took the thread; stop here",
      });
    }
    writeFileAtomic(this.path, encodeLockInfo(next));
    this.#info = next;
  }
}
