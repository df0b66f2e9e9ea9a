import { isThreadId } from "@united-workforce/protocol";
import type {
  AcquiredLease,
  ChildIdentity,
  HolderIdentity,
  Lease,
  LeaseInfo,
  LeaseStore,
} from "@united-workforce/store";
import { busyError, isAlive, lostError, selfIdentity } from "@united-workforce/store/backend";
import { randomToken, UwfError } from "@united-workforce/util";
import type { Database } from "./connection.js";

/** A takeover that keeps losing races this often means something keeps interfering. */
const ACQUIRE_ATTEMPTS = 20;

type ClaimOutcome =
  | { kind: "won"; row: LeaseRow; replaced: LeaseInfo | null }
  | { kind: "none" }
  | { kind: "retry" };

interface LeaseRow {
  thread: string;
  token: string;
  host: string;
  pid: number;
  start_time: string | null;
  command: string;
  acquired_at: Date;
  expires_at: Date;
  child: ChildIdentity | null;
  /** Judged by the database clock, so machines with skewed clocks agree. */
  unexpired: boolean;
}

const COLUMNS =
  "thread, token, host, pid, start_time, command, acquired_at, expires_at, child, expires_at > now() as unexpired";

export interface PostgresLeaseOptions {
  /** This machine's name: holders on it are judged by their process, others by expiry. */
  host: string;
  ttlMs: number;
  /** Current process, injectable for tests of a holder that is gone. */
  self?: () => { pid: number; startTime: string | null };
}

/**
 * Exec leases in `uwf_leases`, one row per held thread. Expiry uses the database clock. A
 * holder on this machine is alive while its process is (pid + start time, like the file
 * locks), so a crashed exec is taken over at once; a holder elsewhere is alive until its lease
 * expires, which its background renewal (every TTL/3) prevents while it runs.
 */
export function createPostgresLeases(db: Database, options: PostgresLeaseOptions): LeaseStore {
  // Long by design: one closure per LeaseStore method, all over one shared connection.
  const { host, ttlMs } = options;
  const self = options.self ?? selfIdentity;
  const holderOf = (): HolderIdentity => ({ host, ...self() });

  const alive = (row: LeaseRow): boolean =>
    row.host === host ? isAlive({ pid: row.pid, startTime: row.start_time }) : row.unexpired;

  const readRow = async (thread: string): Promise<LeaseRow | null> => {
    const [row] = await db.query<LeaseRow>(`select ${COLUMNS} from uwf_leases where thread = $1`, [
      thread,
    ]);
    return row ?? null;
  };

  const handle = (row: LeaseRow) => new PostgresLease(db, infoOf(row), ttlMs);

  return {
    async acquire(thread, { command }): Promise<AcquiredLease> {
      assertThreadId(thread);
      const holder = holderOf();
      const token = randomToken();
      for (let attempt = 0; attempt < ACQUIRE_ATTEMPTS; attempt++) {
        const [created] = await db.query<LeaseRow>(
          `insert into uwf_leases (thread, token, host, pid, start_time, command, expires_at)
           values ($1, $2, $3, $4, $5, $6, now() + $7 * interval '1 millisecond')
           on conflict (thread) do nothing
           returning ${COLUMNS}`,
          [thread, token, holder.host, holder.pid, holder.startTime, command, ttlMs],
        );
        if (created !== undefined) return { lease: handle(created), replaced: null };
        const current = await readRow(thread);
        if (current === null) continue; // released in between: try to insert again
        if (alive(current)) throw busyError(thread, infoOf(current), host);
        // Stale: replace it only if it is still the lease judged stale (its token), so two
        // processes taking over at once cannot both win.
        const [taken] = await db.query<LeaseRow>(
          `update uwf_leases
           set token = $3, host = $4, pid = $5, start_time = $6, command = $7,
               acquired_at = now(), expires_at = now() + $8 * interval '1 millisecond', child = null
           where thread = $1 and token = $2
           returning ${COLUMNS}`,
          [thread, current.token, token, holder.host, holder.pid, holder.startTime, command, ttlMs],
        );
        if (taken !== undefined) return { lease: handle(taken), replaced: infoOf(current) };
      }
      throw new UwfError(
        "THREAD_BUSY",
        `could not take the lease on thread ${thread}: it kept changing hands`,
        {
          hint: "other processes are starting and stopping execs on this thread; try again",
          details: { thread },
        },
      );
    },

    async claimNext({ command, workflow }): Promise<AcquiredLease | null> {
      const holder = holderOf();
      const token = randomToken();
      // A holder on this machine is judged by its process, as `acquire` judges it: the database
      // cannot tell, so the tokens of the gone ones are named to the claim. Holders elsewhere
      // are stale once their lease expired.
      const mine = await db.query<LeaseRow>(`select ${COLUMNS} from uwf_leases where host = $1`, [
        host,
      ]);
      const gone = mine.filter((row) => !alive(row)).map((row) => row.token);
      for (let attempt = 0; attempt < ACQUIRE_ATTEMPTS; attempt++) {
        const outcome = await db.transaction(async (sql): Promise<ClaimOutcome> => {
          // The oldest runnable thread (ids are ULIDs) without a live lease. Its row stays locked
          // until the lease is written, and claimers skip locked rows, so two claims never meet.
          const [candidate] = await sql.query<{ id: string; token: string | null }>(
            `select t.id, l.token from uwf_threads t left join uwf_leases l on l.thread = t.id
             where t.status = 'idle' and ($1::text is null or t.workflow = $1)
               and t.pointer::jsonb -> 'suspended' = 'null'::jsonb
               and not t.pointer::jsonb ? 'parent'
               and (l.thread is null or l.token = any($2::text[])
                    or (l.host <> $3 and l.expires_at <= now()))
             order by t.id limit 1
             for update of t skip locked`,
            [workflow ?? null, gone, host],
          );
          if (candidate === undefined) return { kind: "none" };
          if (candidate.token === null) {
            const [created] = await sql.query<LeaseRow>(
              `insert into uwf_leases (thread, token, host, pid, start_time, command, expires_at)
               values ($1, $2, $3, $4, $5, $6, now() + $7 * interval '1 millisecond')
               on conflict (thread) do nothing
               returning ${COLUMNS}`,
              [candidate.id, token, holder.host, holder.pid, holder.startTime, command, ttlMs],
            );
            return created === undefined
              ? { kind: "retry" }
              : { kind: "won", row: created, replaced: null };
          }
          const [stale] = await sql.query<LeaseRow>(
            `select ${COLUMNS} from uwf_leases where thread = $1 and token = $2`,
            [candidate.id, candidate.token],
          );
          const [taken] = await sql.query<LeaseRow>(
            `update uwf_leases
             set token = $3, host = $4, pid = $5, start_time = $6, command = $7,
                 acquired_at = now(), expires_at = now() + $8 * interval '1 millisecond', child = null
             where thread = $1 and token = $2
             returning ${COLUMNS}`,
            [
              candidate.id,
              candidate.token,
              token,
              holder.host,
              holder.pid,
              holder.startTime,
              command,
              ttlMs,
            ],
          );
          return taken === undefined || stale === undefined
            ? { kind: "retry" }
            : { kind: "won", row: taken, replaced: infoOf(stale) };
        });
        if (outcome.kind === "none") return null;
        if (outcome.kind === "won")
          return { lease: handle(outcome.row), replaced: outcome.replaced };
        // An exec aimed at the thread by hand took its lease in between: look again.
      }
      throw new UwfError(
        "THREAD_BUSY",
        "could not claim a thread: the leases kept changing hands",
        {
          hint: "other processes are starting execs on the same threads; try again",
        },
      );
    },

    async adopt(thread, token) {
      assertThreadId(thread);
      const holder = holderOf();
      const [row] = await db.query<LeaseRow>(
        `update uwf_leases
         set host = $3, pid = $4, start_time = $5, expires_at = now() + $6 * interval '1 millisecond'
         where thread = $1 and token = $2
         returning ${COLUMNS}`,
        [thread, token, holder.host, holder.pid, holder.startTime, ttlMs],
      );
      if (row !== undefined) return handle(row);
      const current = await readRow(thread);
      if (current !== null && alive(current)) throw busyError(thread, infoOf(current), host);
      throw lostError(thread, "the lease this worker was started with is gone");
    },

    async read(thread) {
      assertThreadId(thread);
      const row = await readRow(thread);
      return row === null ? null : { info: infoOf(row), alive: alive(row) };
    },

    async live() {
      const rows = await db.query<LeaseRow>(`select ${COLUMNS} from uwf_leases`);
      return new Set(rows.filter(alive).map((row) => row.thread));
    },

    async clearStale(thread) {
      assertThreadId(thread);
      const current = await readRow(thread);
      if (current === null || alive(current)) return null;
      const removed = await db.execute("delete from uwf_leases where thread = $1 and token = $2", [
        thread,
        current.token,
      ]);
      return removed > 0 ? infoOf(current) : null;
    },
  };
}

/** A held lease; renews itself every TTL/3 (an unref'd timer) until released or lost. */
class PostgresLease implements Lease {
  readonly thread: string;
  readonly token: string;
  readonly #db: Database;
  readonly #ttlMs: number;
  #info: LeaseInfo;
  #timer: NodeJS.Timeout | null;
  #renewing: Promise<void> | null = null;
  /** Set once someone else took the lease: every later change fails with LEASE_LOST. */
  #lost = false;
  /** Handed to another process: this handle neither renews nor releases any more. */
  #handedOver = false;

  constructor(db: Database, info: LeaseInfo, ttlMs: number) {
    this.#db = db;
    this.#info = info;
    this.#ttlMs = ttlMs;
    this.thread = info.thread;
    this.token = info.token;
    this.#timer = setInterval(() => this.#renewInBackground(), Math.max(1, Math.floor(ttlMs / 3)));
    this.#timer.unref();
  }

  /** Whether another process took the lease (seen by a renewal or a change). */
  get lost(): boolean {
    return this.#lost;
  }

  info(): LeaseInfo {
    return structuredClone(this.#info);
  }

  async renew(): Promise<void> {
    const [row] = await this.#change(
      "update uwf_leases set expires_at = now() + $3 * interval '1 millisecond'",
      [this.#ttlMs],
    );
    if (row !== undefined) this.#info = { ...this.#info, expiresAt: row.expires_at.toISOString() };
  }

  async setChild(child: ChildIdentity | null): Promise<void> {
    await this.#change("update uwf_leases set child = $3", [
      child === null ? null : JSON.stringify(child),
    ]);
    this.#info = { ...this.#info, child: child && { ...child } };
  }

  async transfer(holder: HolderIdentity): Promise<void> {
    // The new holder gets a full TTL to adopt the lease before other machines may take it.
    const [row] = await this.#change(
      `update uwf_leases set host = $3, pid = $4, start_time = $5,
         expires_at = now() + $6 * interval '1 millisecond'`,
      [holder.host, holder.pid, holder.startTime, this.#ttlMs],
    );
    this.#info = {
      ...this.#info,
      holder: { ...holder },
      expiresAt: row?.expires_at.toISOString() ?? this.#info.expiresAt,
    };
    this.#handedOver = true;
    this.#stopRenewing();
  }

  async release(): Promise<void> {
    this.#stopRenewing();
    if (this.#lost || this.#handedOver) return;
    await this.#db.execute("delete from uwf_leases where thread = $1 and token = $2", [
      this.thread,
      this.token,
    ]);
  }

  /** Run `update … where thread and token` (the SQL given must start with `update … set …`). */
  async #change(update: string, params: unknown[]): Promise<{ expires_at: Date }[]> {
    if (this.#lost) throw lostError(this.thread, "another process took it over");
    if (this.#handedOver) throw lostError(this.thread, "it was handed to another process");
    const rows = await this.#db.query<{ expires_at: Date }>(
      `${update} where thread = $1 and token = $2 returning expires_at`,
      [this.thread, this.token, ...params],
    );
    if (rows.length === 0) {
      this.#lost = true;
      this.#stopRenewing();
      throw lostError(this.thread, "another process took it over or removed it");
    }
    return rows;
  }

  #renewInBackground(): void {
    if (this.#renewing !== null) return;
    this.#renewing = this.renew()
      .catch(() => {
        // A lost lease has stopped the timer (see #change); a store that is briefly unreachable
        // is retried at the next tick, and the lease lasts as long as its TTL allows.
      })
      .finally(() => {
        this.#renewing = null;
      });
  }

  #stopRenewing(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }
}

function infoOf(row: LeaseRow): LeaseInfo {
  return {
    thread: row.thread,
    token: row.token,
    holder: { host: row.host, pid: row.pid, startTime: row.start_time },
    command: row.command,
    acquiredAt: row.acquired_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    child: row.child,
  };
}

function assertThreadId(id: string): void {
  if (isThreadId(id)) return;
  throw new UwfError("USAGE", `${JSON.stringify(id)} is not a thread id`, {
    hint: "a thread id is the 26-character ULID printed by `uwf thread start` and `uwf thread list`",
  });
}
