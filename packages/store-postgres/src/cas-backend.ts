import type { CasBackend, CasStray, CasWrite } from "@united-workforce/store";
import { hashBytes, UwfError } from "@united-workforce/util";
import type { Database } from "./connection.js";
import { prefixUpperBound } from "./prefix-range.js";

const HASH_RE = "^[0-9A-HJKMNP-TV-Z]{13}$";
/** Rows per page when listing: 1e6 nodes never sit in memory at once. */
const LIST_PAGE = 5_000;
/** Nodes per INSERT, and their bytes at most: one statement's parameters stay a few MB. */
const WRITE_BATCH = 1_000;
const WRITE_BATCH_BYTES = 4 * 1024 * 1024;
const REMOVE_BATCH = 10_000;

/**
 * Node bytes in `uwf_cas_nodes`. A batch is one INSERT … ON CONFLICT statement, so each node is
 * stored completely or not at all, and concurrent writers of one hash agree on who created it.
 * Rewriting an existing node moves its `written_at` (gc keeps recently written nodes).
 *
 * The recursive walks join nodes through `lateral (… limit 1)` and select by `= any(array(…))`:
 * the planner cannot size a recursive CTE and, left to itself, hash-joins it against a full scan
 * of `uwf_cas_nodes` at every level, which makes a walk of the store quadratic.
 */
export function createPostgresCasBackend(
  db: Database,
  options: { clockOffsetMs?: () => Promise<number> } = {},
): CasBackend {
  // Long by design: one closure per CasBackend method, all over one shared connection.
  const offset = options.clockOffsetMs ?? (async () => 0);
  const locate = (hash: string) => `${db.location} uwf_cas_nodes hash=${hash}`;

  return {
    async read(hash) {
      const [row] = await db.query<{ bytes: Buffer }>(
        "select bytes from uwf_cas_nodes where hash = $1",
        [hash],
      );
      return row?.bytes ?? null;
    },

    async readMany(hashes, refsOf) {
      const rows = await db.query<{ hash: string; bytes: Buffer }>(
        `select hash, bytes from uwf_cas_nodes
         where hash = any($1::text[])
            or hash = any(array(select unnest(refs) from uwf_cas_nodes where hash = any($2::text[])))`,
        [hashes, refsOf],
      );
      return new Map(rows.map((row) => [row.hash, row.bytes]));
    },

    async reachableRefs(roots) {
      // `union` drops what was reached already, so shared nodes (and any cycle) end the walk.
      const rows = await db.query<{ hash: string; refs: string[] }>(
        `with recursive reach(hash) as (
           select unnest($1::text[])
           union
           select unnest(n.refs) from reach
           cross join lateral (
             select refs from uwf_cas_nodes n where n.hash = reach.hash limit 1) as n
         )
         select hash, refs from uwf_cas_nodes where hash = any(array(select hash from reach))`,
        [roots],
      );
      return new Map(rows.map((row) => [row.hash, row.refs]));
    },

    async readChains(heads, through, length) {
      // `chain` follows each head's one ref of a `through` type; `reach` adds what the chain
      // nodes reach by refs, stopping at `through` nodes (the chain holds those it wants).
      const rows = await db.query<{ hash: string; bytes: Buffer }>(
        `with recursive chain(hash, n) as (
           select distinct head, 1 from unnest($1::text[]) as head
           union all
           select (select ref from unnest(c.refs) as ref
                   join uwf_cas_nodes p on p.hash = ref
                   where p.type = any($2::text[]) limit 1),
                  chain.n + 1
           from chain
           cross join lateral (
             select refs from uwf_cas_nodes c where c.hash = chain.hash limit 1) as c
           where chain.n < $3
         ), reach(hash) as (
           select hash from chain where hash is not null
           union
           select r.hash from reach
           cross join lateral (
             select refs from uwf_cas_nodes n where n.hash = reach.hash limit 1) as n
           cross join unnest(n.refs) as ref
           cross join lateral (
             select hash from uwf_cas_nodes r
             where r.hash = ref and r.type <> all($2::text[]) limit 1) as r
         )
         select hash, bytes from uwf_cas_nodes where hash = any(array(select hash from reach))`,
        [heads, through, length],
      );
      return new Map(rows.map((row) => [row.hash, row.bytes]));
    },

    async write(nodes) {
      const created = new Set<string>();
      for (const batch of batches(unique(nodes))) {
        for (const hash of await writeBatch(db, batch)) created.add(hash);
      }
      return created;
    },

    async has(hash) {
      const rows = await db.query("select 1 from uwf_cas_nodes where hash = $1", [hash]);
      return rows.length > 0;
    },

    async withPrefix(prefix, limit) {
      // A range on the primary key, so the index answers; `like` keeps the result exact.
      const rows = await db.query<{ hash: string }>(
        `select hash from uwf_cas_nodes where hash >= $1 and ($2::text is null or hash < $2) and hash like $3
         order by hash limit $4`,
        [prefix, prefixUpperBound(prefix), `${prefix}%`, limit],
      );
      return rows.map((row) => row.hash);
    },

    async remove(hashes) {
      for (let i = 0; i < hashes.length; i += REMOVE_BATCH) {
        await db.execute("delete from uwf_cas_nodes where hash = any($1::text[])", [
          hashes.slice(i, i + REMOVE_BATCH),
        ]);
      }
    },

    async *list() {
      let after = "";
      for (;;) {
        const rows = await db.query<{ hash: string }>(
          `select hash from uwf_cas_nodes where hash > $1 and hash ~ '${HASH_RE}'
           order by hash limit ${LIST_PAGE}`,
          [after],
        );
        for (const row of rows) yield row.hash;
        if (rows.length < LIST_PAGE) return;
        after = rows[rows.length - 1]!.hash;
      }
    },

    async recordedRefs(hashes, upTo = 0) {
      // gc marks through these without parsing nodes, but it must still refuse to sweep past a
      // damaged one: the bytes come along and are re-hashed (microseconds for a small node).
      // The walk stops after `upTo` hashes: a recursive query is read only as far as needed.
      const rows = await db.query<{ hash: string; refs: string[]; bytes: Buffer }>(
        `with recursive reach(hash) as (
           select unnest($1::text[])
           union
           select unnest(n.refs) from reach
           cross join lateral (
             select refs from uwf_cas_nodes n where n.hash = reach.hash limit 1) as n
         )
         select hash, refs, bytes from uwf_cas_nodes
         where hash = any(array(select hash from reach limit $2))`,
        [hashes, Math.max(upTo, hashes.length)],
      );
      const refs = new Map<string, readonly string[]>();
      for (const row of rows) {
        const actual = hashBytes(row.bytes);
        if (actual !== row.hash) {
          const where = locate(row.hash);
          throw new UwfError(
            "CAS_CORRUPT",
            `${where}: content does not match its name (it hashes to ${actual}; truncated or edited)`,
            {
              hint: "run `uwf cas verify` to check the whole store; restore it from a backup, or delete it if nothing needs it",
              details: { hash: row.hash, file: where },
            },
          );
        }
        refs.set(row.hash, row.refs);
      }
      return refs;
    },

    locate,

    async *strays(): AsyncGenerator<CasStray> {
      // Rows uwf never writes: a name that is not a hash, a type that is neither "schema" nor a
      // hash, refs that are not hashes. (Bytes that do not match their hash are verify's job.)
      const rows = await db.query<{ hash: string; bad_name: boolean; bad_type: boolean }>(
        `select hash, hash !~ '${HASH_RE}' as bad_name,
                type <> 'schema' and type !~ '${HASH_RE}' as bad_type
         from uwf_cas_nodes
         where hash !~ '${HASH_RE}'
            or (type <> 'schema' and type !~ '${HASH_RE}')
            or exists (select 1 from unnest(refs) as ref where ref !~ '${HASH_RE}')
         order by hash`,
      );
      for (const row of rows) {
        const problem = row.bad_name
          ? "stray row (its hash column is not a CAS hash)"
          : row.bad_type
            ? 'stray row (its type is neither "schema" nor a CAS hash)'
            : "stray row (its refs hold something that is not a CAS hash)";
        yield { location: locate(row.hash), problem };
      }
    },

    async writtenAtMs(hashes) {
      const rows = await db.query<{ hash: string; written_at: Date }>(
        "select hash, written_at from uwf_cas_nodes where hash = any($1::text[])",
        [hashes],
      );
      // In this machine's clock: gc compares it with Date.now().
      const skew = rows.length === 0 ? 0 : await offset();
      return new Map(rows.map((row) => [row.hash, row.written_at.getTime() + skew]));
    },
  };
}

/**
 * One INSERT for the batch. Rows come back for every node: `created` for new ones, `differs`
 * where the stored bytes are not the bytes being written, which only happens when the stored
 * ones are damaged (same hash, other content): those are re-checked and repaired.
 */
async function writeBatch(db: Database, nodes: readonly CasWrite[]): Promise<string[]> {
  const rows = await db.query<{ hash: string; created: boolean; differs: boolean }>(
    `with input as (
       select * from unnest($1::text[], $2::text[], $3::bytea[], $4::text[])
         as t(hash, type, bytes, refs)
     ), upserted as (
       insert into uwf_cas_nodes as n (hash, type, bytes, refs)
       select hash, type, bytes, string_to_array(refs, ',') from input order by hash
       on conflict (hash) do update set written_at = now()
       returning n.hash, n.xmax = 0 as created, n.bytes
     )
     select u.hash, u.created, u.bytes <> i.bytes as differs
     from upserted u join input i on i.hash = u.hash`,
    [
      nodes.map((node) => node.hash),
      nodes.map((node) => node.type),
      nodes.map((node) => toBuffer(node.bytes)),
      nodes.map((node) => node.refs.join(",")),
    ],
  );
  const created = rows.filter((row) => row.created).map((row) => row.hash);
  const suspects = rows.filter((row) => row.differs).map((row) => row.hash);
  if (suspects.length > 0) created.push(...(await repair(db, nodes, suspects)));
  return created;
}

/** Replace stored bytes that do not hash to their name; returns the repaired hashes. */
async function repair(
  db: Database,
  nodes: readonly CasWrite[],
  suspects: string[],
): Promise<string[]> {
  const stored = await db.query<{ hash: string; bytes: Buffer }>(
    "select hash, bytes from uwf_cas_nodes where hash = any($1::text[])",
    [suspects],
  );
  const byHash = new Map(nodes.map((node) => [node.hash, node]));
  const repaired: string[] = [];
  for (const row of stored) {
    const node = byHash.get(row.hash);
    if (node === undefined || hashBytes(row.bytes) === row.hash) continue;
    // Only if still the damaged bytes: a concurrent repair may have come first.
    const changed = await db.execute(
      `update uwf_cas_nodes set bytes = $2, type = $3, refs = string_to_array($4, ','),
         written_at = now()
       where hash = $1 and bytes = $5`,
      [node.hash, toBuffer(node.bytes), node.type, node.refs.join(","), row.bytes],
    );
    if (changed > 0) repaired.push(node.hash);
  }
  return repaired;
}

function unique(nodes: readonly CasWrite[]): CasWrite[] {
  const seen = new Map<string, CasWrite>();
  for (const node of nodes) seen.set(node.hash, node);
  return [...seen.values()];
}

function* batches(nodes: CasWrite[]): Generator<CasWrite[]> {
  let batch: CasWrite[] = [];
  let size = 0;
  for (const node of nodes) {
    if (
      batch.length > 0 &&
      (batch.length >= WRITE_BATCH || size + node.bytes.length > WRITE_BATCH_BYTES)
    ) {
      yield batch;
      batch = [];
      size = 0;
    }
    batch.push(node);
    size += node.bytes.length;
  }
  if (batch.length > 0) yield batch;
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
