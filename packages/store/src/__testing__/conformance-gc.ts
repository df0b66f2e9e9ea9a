import { hashBytes } from "@united-workforce/util";
import { describe, expect, it } from "vitest";
import type { Store } from "../api.js";
import type { ConformanceContext } from "./conformance-context.js";
import { caught, chainNodes, chainPointer, pointer, storeChain } from "./store-fixtures.js";

const HOUR_MS = 3_600_000;

/** Two threads (one forked), a registry entry with two versions, and nodes nothing reaches. */
async function seed(store: Store) {
  const { cas, threads, registry } = store;
  const chain = await storeChain(cas, "plan");
  const forkPoint = await cas.putText("the step a fork started from");
  await threads.create(chainPointer(chain));
  await threads.create(chainPointer(chain, { forkedFrom: forkPoint, head: chain.step1.hash }));
  const older = {
    role: await cas.putSchema({ type: "object", title: "the older version's role" }),
    workflow: "",
  };
  older.workflow = await cas.put(cas.builtin("workflow"), {
    name: "plan",
    roles: { planner: { frontmatter: older.role } },
    graph: {},
  });
  await registry.add("plan", older.workflow);
  await registry.add("plan", chain.workflow);
  const garbage = [await cas.putText("old prompt"), await cas.putText("old body")].sort();
  const kept = [
    ...chainNodes(cas, chain),
    forkPoint,
    older.workflow,
    older.role,
    cas.builtin("workflow"),
  ];
  return { chain, older, garbage, kept };
}

async function stored(store: Store): Promise<Set<string>> {
  const hashes = new Set<string>();
  for await (const hash of store.cas.backend.list()) hashes.add(hash);
  return hashes;
}

export function describeGcConformance(context: ConformanceContext): void {
  // Long by design: the gc cases of the suite, one `it` each, in one describe block.
  const { hooks } = context;

  describe("gc", () => {
    it("dry run reports the unreachable nodes and deletes nothing", async () => {
      const { store } = context;
      const { garbage } = await seed(store);
      const before = await stored(store);
      const report = await store.gc({ dryRun: true });
      expect(report).toMatchObject({ dryRun: true, unreachable: garbage, deleted: 0, recent: [] });
      expect(report.bytes).toBeGreaterThan(0);
      expect(await stored(store)).toEqual(before);
    });

    it("deletes what nothing reaches, keeping what threads and every registry version reach", async () => {
      const { store } = context;
      const { garbage, kept } = await seed(store);
      const report = await store.gc({ dryRun: false });
      expect(report).toMatchObject({ dryRun: false, unreachable: garbage, deleted: 2 });
      expect(report.roots).toBeGreaterThan(0);
      expect(report.reachable).toBe((await stored(store)).size);
      for (const hash of garbage) expect(await store.cas.has(hash)).toBe(false);
      for (const hash of kept) expect(await store.cas.backend.has(hash)).toBe(true);
      expect(await store.verify()).toMatchObject({ corrupt: [] });
      expect((await store.gc({ dryRun: false })).deleted).toBe(0);
    });

    it("keeps each node a pointer names: head, start, workflow and fork origin", async () => {
      const { store } = context;
      const { cas, threads } = store;
      const head = await cas.putText("head");
      const start = await cas.putText("start");
      const workflowHash = await cas.putText("workflow");
      const forkedFrom = await cas.putText("fork origin");
      const garbage = await cas.putText("garbage");
      await threads.create(pointer({ head, start, workflowHash, forkedFrom }));
      await store.gc({ dryRun: false });
      for (const hash of [head, start, workflowHash, forkedFrom]) {
        expect(await cas.has(hash)).toBe(true);
      }
      expect(await cas.has(garbage)).toBe(false);
    });

    it("keeps built-in schema nodes even when nothing refers to them", async () => {
      const { store } = context;
      const text = await store.cas.putText("x");
      const report = await store.gc({ dryRun: false });
      expect(report).toMatchObject({ roots: 0, unreachable: [text], deleted: 1 });
      expect(await store.cas.backend.has(store.cas.builtin("text"))).toBe(true);
    });

    it("does nothing to an empty store", async () => {
      expect(await context.store.gc({ dryRun: false })).toEqual({
        dryRun: false,
        roots: 0,
        reachable: 0,
        unreachable: [],
        deleted: 0,
        bytes: 0,
        recent: [],
      });
    });

    it("keeps unreachable nodes written within keepRecentMs", async () => {
      const { store } = context;
      const { garbage } = await seed(store);
      const report = await store.gc({ dryRun: false, keepRecentMs: HOUR_MS });
      expect(report).toMatchObject({ recent: garbage, unreachable: [], deleted: 0 });
      for (const hash of garbage) expect(await store.cas.has(hash)).toBe(true);
    });

    it.skipIf(!hooks.backdate)("sweeps unreachable nodes older than keepRecentMs", async () => {
      const { store } = context;
      const { garbage } = await seed(store);
      const [fresh, old] = garbage as [string, string];
      await hooks.backdate!(store, old, 2 * HOUR_MS);
      const report = await store.gc({ dryRun: false, keepRecentMs: HOUR_MS });
      expect(report).toMatchObject({ recent: [fresh], unreachable: [old], deleted: 1 });
      expect(await store.cas.has(fresh)).toBe(true);
      expect(await store.cas.has(old)).toBe(false);
    });

    it.skipIf(!hooks.backdate)("counts writing an existing node again as a new write", async () => {
      const { store } = context;
      const { garbage } = await seed(store);
      for (const hash of garbage) await hooks.backdate!(store, hash, 2 * HOUR_MS);
      const again = await store.cas.putText("old prompt");
      const report = await store.gc({ dryRun: true, keepRecentMs: HOUR_MS });
      expect(report.recent).toEqual([again]);
      expect(report.unreachable).toEqual(garbage.filter((hash) => hash !== again));
    });

    it.skipIf(!hooks.backdate)(
      "keeps what a recent node points to, so it stays readable",
      async () => {
        const { store } = context;
        const { cas } = store;
        // A writer stored a schema long ago and, just now, a node of it not linked yet.
        const schema = await cas.putSchema({ type: "object", title: "an old role" });
        await hooks.backdate!(store, schema, 2 * HOUR_MS);
        const node = await cas.put(schema, { plan: "p" });
        await hooks.backdate!(store, schema, 2 * HOUR_MS);
        const report = await store.gc({ dryRun: false, keepRecentMs: HOUR_MS });
        expect(report.recent).toContain(node);
        expect((await store.verify()).corrupt).toEqual([]);
        // A process that has not seen the schema yet can still follow the node's refs.
        const fresh = await context.peer({});
        expect(await fresh.cas.refs(node)).toEqual([schema]);
      },
    );

    it("refuses, deleting nothing, when a reachable node is missing", async () => {
      const { store } = context;
      const { chain, garbage } = await seed(store);
      const missing = hashBytes(Buffer.from("never stored"));
      await store.threads.create(chainPointer(chain, { head: missing }));
      const before = await stored(store);
      const error = await caught(() => store.gc({ dryRun: false }));
      expect(error.code).toBe("GC_REFUSED");
      expect(error.message).toContain(missing);
      expect(error.details).toEqual({ hash: missing });
      expect(await stored(store)).toEqual(before);
      for (const hash of garbage) expect(await store.cas.has(hash)).toBe(true);
    });

    it.skipIf(!hooks.corrupt)(
      "refuses, deleting nothing, when a reachable node is corrupt",
      async () => {
        const { store } = context;
        const { chain, garbage } = await seed(store);
        await hooks.corrupt!(store, chain.step1.body);
        const before = await stored(store);
        const error = await caught(() => store.gc({ dryRun: false }));
        expect(error.code).toBe("GC_REFUSED");
        expect(error.message).toContain(chain.step1.body);
        expect(error.message).toContain(store.cas.backend.locate(chain.step1.body));
        expect(await stored(store)).toEqual(before);
        for (const hash of garbage) expect(await store.cas.has(hash)).toBe(true);
      },
    );

    it.skipIf(!hooks.corruptPointer)(
      "refuses, deleting nothing, when a thread pointer is unreadable",
      async () => {
        const { store } = context;
        const { chain, garbage } = await seed(store);
        const broken = await store.threads.create(chainPointer(chain));
        await hooks.corruptPointer!(store, broken.thread);
        const error = await caught(() => store.gc({ dryRun: false }));
        expect(error.code).toBe("GC_REFUSED");
        expect(error.message).toContain(store.threads.locate(broken.thread));
        for (const hash of garbage) expect(await store.cas.has(hash)).toBe(true);
      },
    );

    it.skipIf(!hooks.corruptRegistry)(
      "refuses, deleting nothing, when a registry entry is unreadable",
      async () => {
        const { store } = context;
        const { garbage } = await seed(store);
        await store.registry.add("broken", garbage[0]!);
        await hooks.corruptRegistry!(store, "broken");
        const { problems } = await store.registry.scan();
        const error = await caught(() => store.gc({ dryRun: true }));
        expect(error.code).toBe("GC_REFUSED");
        expect(error.message).toContain(problems[0]!.location);
        for (const hash of garbage) expect(await store.cas.has(hash)).toBe(true);
      },
    );
  });

  describe("verify", () => {
    it("passes a healthy store, checking every node", async () => {
      const { store } = context;
      await store.cas.putText("a");
      await store.cas.putText("b");
      expect(await store.verify()).toEqual({ checked: 3, ok: 3, corrupt: [] });
    });

    it("reports an empty store as empty", async () => {
      expect(await context.store.verify()).toEqual({ checked: 0, ok: 0, corrupt: [] });
    });

    it("reports stored content that is not a node", async () => {
      const { store } = context;
      await store.cas.putText("fine");
      const content = Buffer.from("not json");
      const hash = hashBytes(content);
      await store.cas.backend.write([{ hash, bytes: content, type: "schema", refs: [] }]);
      const report = await store.verify();
      expect(report).toMatchObject({ checked: 3, ok: 2 });
      expect(report.corrupt).toEqual([
        { hash, file: store.cas.backend.locate(hash), problem: expect.any(String) },
      ]);
    });

    it.skipIf(!hooks.corrupt)("reports a corrupt node by name", async () => {
      const { store } = context;
      const bad = await store.cas.putText("bad");
      await store.cas.putText("fine");
      await hooks.corrupt!(store, bad);
      expect(await store.verify()).toEqual({
        checked: 3,
        ok: 2,
        corrupt: [
          {
            hash: bad,
            file: store.cas.backend.locate(bad),
            problem: expect.stringMatching(/does not match its name/),
          },
        ],
      });
    });
  });
}
