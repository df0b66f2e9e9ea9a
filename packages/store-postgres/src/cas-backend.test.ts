import type { CasBackend, CasWrite } from "@united-workforce/store";
import { hashBytes } from "@united-workforce/util";
import { describe, expect, it } from "vitest";
import { caught } from "../../store/src/__testing__/store-fixtures.js";
import { usePostgres } from "./__testing__/server.js";
import { createPostgresCasBackend } from "./cas-backend.js";
import { prefixUpperBound } from "./prefix-range.js";

const pg = usePostgres();

function node(payload: unknown, refs: string[] = []): CasWrite {
  const bytes = new TextEncoder().encode(JSON.stringify({ payload, type: "schema" }));
  return { hash: hashBytes(bytes), bytes, type: "schema", refs };
}

async function backend() {
  const { db } = await pg.migrated();
  return { db, cas: createPostgresCasBackend(db) };
}

/** The single-node readings of the batched gc queries. */
const refsOf = async (cas: CasBackend, hash: string) =>
  (await cas.recordedRefs!([hash])).get(hash) ?? null;
const writtenAt = async (cas: CasBackend, hash: string) =>
  (await cas.writtenAtMs!([hash])).get(hash) ?? null;

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const decode = (bytes: Uint8Array | null) =>
  bytes === null ? null : new TextDecoder().decode(bytes);

describe("PostgreSQL CAS backend", () => {
  it("writes a batch in one go and reads each node back", async () => {
    const { cas } = await backend();
    const a = node("a");
    const b = node("b", [a.hash]);
    const c = node("c", [a.hash, b.hash]);
    expect(await cas.write([a, b, c])).toEqual(new Set([a.hash, b.hash, c.hash]));
    expect(decode(await cas.read(b.hash))).toBe(decode(b.bytes));
    expect(await cas.has(c.hash)).toBe(true);
    expect(await refsOf(cas, c.hash)).toEqual([a.hash, b.hash]);
    expect(await refsOf(cas, a.hash)).toEqual([]);
    expect(await cas.read("0000000000000")).toBeNull();
    expect(await cas.has("0000000000000")).toBe(false);
    expect(await refsOf(cas, "0000000000000")).toBeNull();
  });

  it("reads several nodes and the nodes one points to in one statement, leaving out the absent", async () => {
    const { cas } = await backend();
    const a = node("a");
    const b = node("b");
    const c = node("c", [a.hash, b.hash, "0000000000001"]);
    const d = node("d");
    await cas.write([a, b, c, d]);
    const read = await cas.readMany!([c.hash, d.hash, "0000000000000"], [c.hash]);
    expect([...read.keys()].sort()).toEqual([a.hash, b.hash, c.hash, d.hash].sort());
    expect(decode(read.get(b.hash) ?? null)).toBe(decode(b.bytes));
    expect((await cas.readMany!([d.hash], [])).size).toBe(1);
  });

  it("reads the refs of the nodes a batch reaches, breadth first, up to a bound", async () => {
    const { cas } = await backend();
    const leaf = node("leaf");
    const middle = node("middle", [leaf.hash]);
    const top = node("top", [middle.hash, "0000000000001"]);
    await cas.write([leaf, middle, top]);
    const all = await cas.recordedRefs!([top.hash, "0000000000000"], 10);
    expect(Object.fromEntries(all)).toEqual({
      [top.hash]: [middle.hash, "0000000000001"],
      [middle.hash]: [leaf.hash],
      [leaf.hash]: [],
    });
    expect([...(await cas.recordedRefs!([top.hash], 2)).keys()].sort()).toEqual(
      [top.hash, middle.hash].sort(),
    );
  });

  it("rewriting an existing node creates nothing and restarts its gc grace period", async () => {
    const { db, cas } = await backend();
    const a = node("a");
    const b = node("b");
    await cas.write([a]);
    await db.execute("update uwf_cas_nodes set written_at = '2000-01-01T00:00:00Z'");
    expect(await writtenAt(cas, a.hash)).toBe(Date.parse("2000-01-01T00:00:00Z"));
    expect(await cas.write([a, b, b])).toEqual(new Set([b.hash]));
    expect(await writtenAt(cas, a.hash)).toBeGreaterThan(Date.parse("2020-01-01T00:00:00Z"));
    expect(await writtenAt(cas, "0000000000000")).toBeNull();
  });

  it("of many concurrent writers of one new node, exactly one created it", async () => {
    const { cas } = await backend();
    const shared = node({ shared: true });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => cas.write([node(i), shared])),
    );
    expect(results.filter((created) => created.has(shared.hash))).toHaveLength(1);
  });

  it("repairs a damaged row on rewrite, and gc's refs refuse to read past it", async () => {
    const { db, cas } = await backend();
    const a = node({ text: "intact" });
    await cas.write([a]);
    await db.execute("update uwf_cas_nodes set bytes = $2 where hash = $1", [
      a.hash,
      Buffer.from('{"payload":"damaged","type":"schema"}'),
    ]);
    const error = await caught(() => refsOf(cas, a.hash));
    expect(error.code).toBe("CAS_CORRUPT");
    expect(error.message).toContain(`${cas.locate(a.hash)}: content does not match its name`);
    expect(await cas.write([a])).toEqual(new Set([a.hash]));
    expect(decode(await cas.read(a.hash))).toBe(decode(a.bytes));
    expect(await refsOf(cas, a.hash)).toEqual([]);
  });

  it("splits big writes into several statements and lists every node in pages", async () => {
    const { cas } = await backend();
    const nodes = Array.from({ length: 12_345 }, (_, i) => node(i));
    expect((await cas.write(nodes)).size).toBe(nodes.length);
    const listed = await collect(cas.list());
    expect(listed).toHaveLength(nodes.length);
    expect(listed).toEqual(nodes.map((n) => n.hash).sort());
  });

  it("removes nodes", async () => {
    const { cas } = await backend();
    const [a, b, c] = [node("a"), node("b"), node("c")];
    await cas.write([a, b, c]);
    await cas.remove([a.hash, c.hash, "0000000000000"]);
    expect(await collect(cas.list())).toEqual([b.hash]);
    await cas.remove([]);
  });

  it("names a node's row for messages and reports rows that are not nodes as strays", async () => {
    const { db, cas } = await backend();
    const url = (await db.query<{ db: string }>("select current_database() as db"))[0]!.db;
    const a = node("a");
    await cas.write([a]);
    expect(cas.locate(a.hash)).toMatch(
      new RegExp(`^postgres://uwf@127\\.0\\.0\\.1:\\d+/${url} uwf_cas_nodes hash=${a.hash}$`),
    );
    await db.execute(
      `insert into uwf_cas_nodes (hash, type, bytes, refs) values
         ('not-a-hash', 'schema', '\\x00', '{}'),
         ('0000000000001', 'text', '\\x00', '{}'),
         ('0000000000002', 'schema', '\\x00', '{oops}')`,
    );
    const strays = await collect(cas.strays!());
    expect(strays.map((s) => [s.location.split(" ").pop(), s.problem])).toEqual([
      ["hash=0000000000001", 'stray row (its type is neither "schema" nor a CAS hash)'],
      ["hash=0000000000002", "stray row (its refs hold something that is not a CAS hash)"],
      ["hash=not-a-hash", "stray row (its hash column is not a CAS hash)"],
    ]);
    expect(await collect(cas.list())).toEqual(["0000000000001", "0000000000002", a.hash].sort());
  });

  it("looks a prefix up through the primary key's index, not by scanning the table", async () => {
    const { db } = await backend();
    // With sequential scans priced out, the plan shows whether the index can answer at all
    // (a bare `like 'X%'` cannot use it under a non-C collation; the range can).
    const plans = await db.transaction(async (tx) => {
      await tx.execute("set local enable_seqscan = off");
      const cas = await tx.query<{ "QUERY PLAN": string }>(
        `explain select hash from uwf_cas_nodes where hash >= $1 and ($2::text is null or hash < $2)
         and hash like $3 order by hash limit $4`,
        ["7MSK", prefixUpperBound("7MSK"), "7MSK%", 11],
      );
      const threads = await tx.query<{ "QUERY PLAN": string }>(
        `explain select id from uwf_threads where id >= $1 and ($2::text is null or id < $2)
         and id like $3 order by id limit $4`,
        ["01K0", prefixUpperBound("01K0"), "01K0%", 11],
      );
      return [cas, threads].map((rows) => rows.map((row) => row["QUERY PLAN"]).join("\n"));
    });
    expect(plans[0]).toMatch(/Index (Only )?Scan (using|on) uwf_cas_nodes_pkey/);
    expect(plans[0]).toContain("(hash >= '7MSK'::text) AND (hash < '7MSM'::text)");
    expect(plans[1]).toMatch(/Index (Only )?Scan (using|on) uwf_threads_pkey/);
  });

  it("bounds a prefix range by the next Base32 string", () => {
    expect(prefixUpperBound("7MSK")).toBe("7MSM");
    expect(prefixUpperBound("01AZ")).toBe("01B");
    expect(prefixUpperBound("09")).toBe("0A");
    expect(prefixUpperBound("ZZZ")).toBeNull();
  });
});
