import { isThreadId, type ThreadPointer } from "@united-workforce/protocol";
import type {
  ThreadListItem,
  ThreadPage,
  ThreadQuery,
  ThreadsStore,
} from "@united-workforce/store";
import {
  corruptThreadError,
  missingThreadError,
  parsePointer,
} from "@united-workforce/store/backend";
import { UwfError } from "@united-workforce/util";
import type { Database } from "./connection.js";
import { prefixUpperBound } from "./prefix-range.js";

/** Rows per page when iterating every thread. */
const ALL_PAGE = 1_000;

/**
 * Thread pointers in `uwf_threads`: the pointer JSON as the filesystem stores it, plus columns a
 * trigger derives from it (rev, status — `corrupt` when unreadable —, workflow, start node,
 * creation time)
 * so listing filters and pages in SQL and a swap is one conditional UPDATE.
 */
export function createPostgresThreads(
  db: Database,
  liveThreads: () => Promise<Set<string>>,
): ThreadsStore {
  // Long by design: one closure per ThreadsStore method, all over one shared connection.
  const locate = (id: string) => {
    assertThreadId(id);
    return `${db.location} uwf_threads id=${id}`;
  };

  const readPointer = async (id: string): Promise<ThreadPointer> => {
    const [row] = await db.query<{ pointer: string }>(
      "select pointer from uwf_threads where id = $1",
      [id],
    );
    if (row === undefined) throw missingThreadError(id);
    const parsed = parsePointer(row.pointer, id);
    if ("problem" in parsed) throw corruptThreadError(id, locate(id), parsed.problem);
    return withRev(parsed.pointer);
  };

  const readItem = (id: string, text: string, live: Set<string>): ThreadListItem => {
    const parsed = parsePointer(text, id);
    return "problem" in parsed
      ? { id, pointer: null, problem: parsed.problem, running: live.has(id) }
      : { id, pointer: withRev(parsed.pointer), problem: null, running: live.has(id) };
  };

  return {
    async get(id) {
      assertThreadId(id);
      return readPointer(id);
    },

    async exists(id) {
      if (!isThreadId(id)) return false;
      const rows = await db.query("select 1 from uwf_threads where id = $1", [id]);
      return rows.length > 0;
    },

    async withPrefix(prefix, limit) {
      const rows = await db.query<{ id: string }>(
        `select id from uwf_threads where id >= $1 and ($2::text is null or id < $2) and id like $3
         order by id limit $4`,
        [prefix, prefixUpperBound(prefix), `${prefix}%`, limit],
      );
      return rows.map((row) => row.id);
    },

    async create(pointer) {
      assertThreadId(pointer.thread);
      const stored: ThreadPointer = { ...pointer, rev: 1 };
      const inserted = await db.execute(
        "insert into uwf_threads (id, pointer) values ($1, $2) on conflict (id) do nothing",
        [stored.thread, encodePointer(stored)],
      );
      if (inserted === 0) {
        throw new UwfError("THREAD_EXISTS", `thread ${pointer.thread} already exists`, {
          hint: "a thread id is never reused; start a new thread (`uwf thread start`) for a fresh one",
          details: { thread: pointer.thread },
        });
      }
      return stored;
    },

    async swap(next, expectedRev) {
      const id = next.thread;
      assertThreadId(id);
      const stored: ThreadPointer = { ...next, rev: expectedRev + 1 };
      const changed = await db.execute(
        "update uwf_threads set pointer = $2 where id = $1 and rev = $3",
        [id, encodePointer(stored), expectedRev],
      );
      if (changed > 0) return stored;
      // Nothing written: tell a lost race from a thread that is gone or unreadable (throws).
      await readPointer(id);
      return null;
    },

    async list(query: ThreadQuery = {}): Promise<ThreadPage> {
      const live = await liveThreads();
      const rows = await listRows(db, query, live);
      const more = query.limit !== undefined && rows.length > query.limit;
      const items = (more ? rows.slice(0, query.limit) : rows).map((row) =>
        readItem(row.id, row.pointer, live),
      );
      if (!query.count) return { items, more };
      return { items, more, total: await countRows(db, query, live) };
    },

    async *all() {
      const live = await liveThreads();
      let after = "";
      for (;;) {
        const rows = await db.query<{ id: string; pointer: string }>(
          `select id, pointer from uwf_threads where id > $1 order by id limit ${ALL_PAGE}`,
          [after],
        );
        for (const row of rows) yield readItem(row.id, row.pointer, live);
        if (rows.length < ALL_PAGE) return;
        after = rows[rows.length - 1]!.id;
      }
    },

    async reindex() {
      // The database keeps its own indexes.
      return null;
    },

    locate,
  };
}

/**
 * The rows `query` keeps. `running` (a live lease) is a short id list, so each status test is
 * one the status index answers: a stored status of a thread no lease holds, or a held thread.
 * The cursor (`after`) compares in the list's order, so the primary key serves it.
 */
const matching = (query: ThreadQuery) => `
  ($1::text is null or workflow = $1)
  and ($2::float8 is null or created_ms > $2)
  and ($3::float8 is null or created_ms < $3)
  and ($4::text[] is null
    or (status = any($4::text[]) and (status = 'corrupt' or not id = any($5::text[])))
    or ('running' = any($4::text[]) and status <> 'corrupt' and id = any($5::text[])))
  and ($6::text is null or start = $6)
  and ($7::text is null or title_lc like $7)
  and ($8::text is null or id ${query.oldestFirst ? ">" : "<"} $8)`;

function matchingParams(query: ThreadQuery, live: Set<string>): unknown[] {
  return [
    query.workflow ?? null,
    query.createdAfterMs ?? null,
    query.createdBeforeMs ?? null,
    query.statuses === undefined ? null : [...query.statuses],
    [...live],
    query.start ?? null,
    query.title === undefined ? null : `%${escapeLike(query.title.toLowerCase())}%`,
    query.after ?? null,
  ];
}

/**
 * One page of the threads `query` selects, newest first (or oldest), and one row more when
 * there is more: no count, so a page costs what it shows (the indexes and the primary key's
 * order serve it).
 */
function listRows(
  db: Database,
  query: ThreadQuery,
  live: Set<string>,
): Promise<{ id: string; pointer: string }[]> {
  return db.query(
    `select id, pointer from uwf_threads where ${matching(query)}
     order by id ${query.oldestFirst ? "asc" : "desc"} limit $9 offset $10`,
    [
      ...matchingParams(query, live),
      query.limit === undefined ? null : query.limit + 1,
      query.offset ?? 0,
    ],
  );
}

/** Every match, counted: only when a caller asks (`ThreadQuery.count`). */
async function countRows(db: Database, query: ThreadQuery, live: Set<string>): Promise<number> {
  const [row] = await db.query<{ total: number }>(
    `select count(*)::int as total from uwf_threads where ${matching(query)}`,
    matchingParams(query, live),
  );
  return row?.total ?? 0;
}

/** `text` as a LIKE pattern that matches it literally. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** The same text the filesystem writes, so `uwf store migrate` can copy pointers verbatim. */
export function encodePointer(pointer: ThreadPointer): string {
  return `${JSON.stringify(pointer, null, 2)}\n`;
}

/** Pointers written before revisions existed read as revision 0. */
function withRev(pointer: ThreadPointer): ThreadPointer {
  return pointer.rev === undefined ? { ...pointer, rev: 0 } : pointer;
}

function assertThreadId(id: string): void {
  if (isThreadId(id)) return;
  throw new UwfError("USAGE", `${JSON.stringify(id)} is not a thread id`, {
    hint: "a thread id is the 26-character ULID printed by `uwf thread start` and `uwf thread list`",
  });
}
