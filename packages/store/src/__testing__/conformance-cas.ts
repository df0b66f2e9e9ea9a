import { canonicalJson, hashBytes } from "@united-workforce/util";
import { describe, expect, it } from "vitest";
import type { ConformanceContext } from "./conformance-context.js";
import { caught, chainNodes, storeChain } from "./store-fixtures.js";

const planSchema = {
  type: "object",
  required: ["$status", "plan"],
  properties: { $status: { type: "string" }, plan: { type: "string" } },
};

export function describeCasConformance(context: ConformanceContext): void {
  // Long by design: the CAS cases of the suite, one `it` each, in one describe block.
  const { hooks } = context;

  describe("cas", () => {
    it("round-trips a node and stores exactly its hashed canonical bytes", async () => {
      const { cas } = context.store;
      const schema = await cas.putSchema(planSchema);
      const hash = await cas.put(schema, { plan: "write tests", $status: "done" });
      expect(await cas.get(hash)).toEqual({
        type: schema,
        payload: { $status: "done", plan: "write tests" },
      });
      expect(await cas.has(hash)).toBe(true);
      expect(await cas.has(schema)).toBe(true);
      const bytes = await cas.backend.read(hash);
      expect(bytes).not.toBeNull();
      expect(hashBytes(bytes!)).toBe(hash);
      expect(Buffer.from(bytes!).toString("utf8")).toBe(
        canonicalJson({ type: schema, payload: { plan: "write tests", $status: "done" } }),
      );
    });

    it("prefetches a run's nodes and reads them as stored; a missing one stays missing", async () => {
      const { cas } = context.store;
      const chain = await storeChain(cas, "prefetch");
      const expected = await cas.get(chain.start);
      await cas.prefetch([chain.workflow, chain.start, "0000000000000"], [chain.workflow]);
      expect(await cas.get(chain.start)).toEqual(expected);
      expect(await cas.schema(chain.role)).toMatchObject({ required: ["$status"] });
      expect((await caught(() => cas.get("0000000000000"))).code).toBe("CAS_NOT_FOUND");
      if (cas.backend.readMany !== undefined) {
        const read = await cas.backend.readMany([chain.start], [chain.workflow]);
        expect(read.has(chain.start) && read.has(chain.role)).toBe(true);
      }
    });

    it("finds every node a chain reaches, with its refs, and leaves a missing one out", async () => {
      const { cas } = context.store;
      const chain = await storeChain(cas, "reach");
      const reached = await cas.reachableRefs([chain.step2.hash, "0000000000000"]);
      expect([...reached.keys()].sort()).toEqual([...new Set(chainNodes(cas, chain))].sort());
      for (const [hash, refs] of reached) expect(refs).toEqual(await cas.refs(hash));
      expect((await cas.reachableRefs([chain.step1.body])).get(chain.step1.body)).toEqual([
        cas.builtin("text"),
      ]);
    });

    it("prefetches stretches of chains: each head's steps and what they reach, not past the stretch", async () => {
      const { cas } = context.store;
      const chain = await storeChain(cas, "chains");
      const other = await storeChain(cas, "other chain");
      const step = cas.builtin("step");
      await cas.prefetchChains([chain.step2.hash, other.step2.hash], [step], 1);
      expect(await cas.getPayload(chain.step2.hash, "step")).toMatchObject({
        prev: chain.step1.hash,
      });
      expect(await cas.get(chain.step2.output)).toMatchObject({ type: chain.role });
      if (cas.backend.readChains === undefined) return;
      const read = await cas.backend.readChains(
        [chain.step2.hash, other.step2.hash, "0000000000000"],
        [step],
        1,
      );
      const { hash: _, ...step2Nodes } = chain.step2;
      for (const hash of [
        chain.step2.hash,
        ...Object.values(step2Nodes),
        chain.start,
        chain.workflow,
        chain.role,
      ]) {
        expect(read.has(hash), hash).toBe(true);
      }
      expect(read.has(other.step2.hash)).toBe(true);
      // Length 1: the step before each head is the next stretch's, not this one's.
      expect(read.has(chain.step1.hash) || read.has(chain.step1.output)).toBe(false);
      const whole = await cas.backend.readChains([chain.step2.hash], [step], 2);
      expect(whole.has(chain.step1.hash) && whole.has(chain.step1.body)).toBe(true);
      expect(whole.has(other.step2.hash)).toBe(false);
    });

    it("gives recorded refs and write times of many nodes at once, where a backend records them", async () => {
      const { cas } = context.store;
      const chain = await storeChain(cas, "recorded");
      const before = Date.now();
      await cas.putText("written now");
      const missing = "0000000000000";
      if (cas.backend.recordedRefs !== undefined) {
        const refs = await cas.backend.recordedRefs([chain.step2.hash, missing]);
        expect(refs.has(missing)).toBe(false);
        expect(refs.get(chain.step2.hash)).toEqual(await cas.refs(chain.step2.hash));
        // What the step reaches comes along, up to the bound.
        const reached = await cas.backend.recordedRefs([chain.step2.hash], 100);
        expect(reached.has(chain.step2.output) && reached.has(chain.step1.hash)).toBe(true);
        expect((await cas.backend.recordedRefs([chain.step2.hash], 1)).size).toBe(1);
      }
      if (cas.backend.writtenAtMs !== undefined) {
        const text = await cas.putText("written now");
        const times = await cas.backend.writtenAtMs([text, chain.start, missing]);
        expect(times.has(missing)).toBe(false);
        // Clocks of the machine and a database server may differ a little: a day is plenty.
        expect(Math.abs(times.get(text)! - before)).toBeLessThan(86_400_000);
        expect(times.has(chain.start)).toBe(true);
      }
    });

    it("writes nodes prepared elsewhere (an adapter's) and reads them back", async () => {
      const { cas } = context.store;
      const node = cas.prepareText("written for an adapter");
      expect(await cas.writeKept([node])).toEqual(new Set([node.hash]));
      expect(await cas.getText(node.hash)).toBe("written for an adapter");
      expect(await cas.backend.has(node.hash)).toBe(true);
    });

    it("names nodes the same in every store: the hash format is pinned", async () => {
      const { cas } = context.store;
      expect(cas.builtin("text")).toBe("BFPCY5DWEPBVJ");
      expect(await cas.putText("hello")).toBe("7MSKT4YB69AED");
      expect(await cas.getText("7MSKT4YB69AED")).toBe("hello");
    });

    it("reports a missing node, and knows built-in schemas whether written or not", async () => {
      const { cas } = context.store;
      const error = await caught(() => cas.get("0000000000000"));
      expect(error.code).toBe("CAS_NOT_FOUND");
      expect(error.details).toEqual({ hash: "0000000000000" });
      expect(await cas.has("0000000000000")).toBe(false);
      expect(await cas.backend.read("0000000000000")).toBeNull();
      expect(await cas.has(cas.builtin("step"))).toBe(true);
      expect((await cas.get(cas.builtin("step"))).type).toBe("schema");
    });

    it("treats writing an existing hash as a no-op that reports not created", async () => {
      const { cas } = context.store;
      const node = { type: cas.builtin("text"), payload: "same" };
      const first = await cas.putNode(node);
      expect(first.created).toBe(true);
      expect(await cas.putNode(node)).toEqual({ hash: first.hash, created: false });
      const schema = await cas.putSchema(planSchema);
      const a = await cas.putNode({ type: schema, payload: { $status: "done", plan: "p" } });
      // Same content, other key order: the same node.
      expect(await cas.putNode({ type: schema, payload: { plan: "p", $status: "done" } })).toEqual({
        hash: a.hash,
        created: false,
      });
      const stored = await cas.backend.read(first.hash);
      const created = await cas.backend.write([
        { hash: first.hash, bytes: stored!, type: node.type, refs: [node.type] },
      ]);
      expect(created).toEqual(new Set());
      const batch = cas.batch();
      batch.putText("same");
      const fresh = batch.putText("new");
      expect(await batch.flush()).toEqual(new Set([fresh]));
    });

    it("writes a batch at flush: none of its nodes before, all of them after", async () => {
      const { cas } = context.store;
      const batch = cas.batch();
      const role = await cas.putSchema({ type: "object" });
      const workflow = await batch.put(cas.builtin("workflow"), {
        name: "w",
        roles: { r: { frontmatter: role } },
        graph: {},
      });
      // Hashes are known at once, so a later node of the batch points to an earlier one.
      const start = await batch.put(cas.builtin("start"), {
        workflow,
        prompt: "p",
        cwd: "/",
        createdAtMs: 0,
      });
      const text = batch.putText("body");
      const hashes = [workflow, start, text];
      for (const hash of hashes) expect(await cas.backend.has(hash)).toBe(false);

      const created = await batch.flush();
      for (const hash of hashes) expect(created.has(hash)).toBe(true);
      expect((await cas.get(start)).payload).toMatchObject({ workflow });
      expect(await cas.getText(text)).toBe("body");
      expect(await cas.refs(start)).toEqual([cas.builtin("start"), workflow]);
      // The built-in schema nodes the batch's nodes are typed by are stored with them.
      for (const kind of ["workflow", "start", "text"] as const) {
        expect(await cas.backend.has(cas.builtin(kind))).toBe(true);
      }
      expect(await batch.flush()).toEqual(new Set());
    });

    it("validates payloads against their schema node", async () => {
      const { cas } = context.store;
      const schema = await cas.putSchema(planSchema);
      expect(await cas.validate(schema, { $status: "done", plan: "p" })).toEqual({
        valid: true,
        errors: [],
      });
      expect(await cas.validate(schema, { plan: 1 })).toEqual({
        valid: false,
        errors: ["/: must have required property '$status'", "/plan: must be string"],
      });
      const error = await caught(() => cas.put(schema, { $status: 1, plan: 2 }));
      expect(error.code).toBe("NODE_INVALID");
      expect(error.details?.errors).toEqual(["/$status: must be string", "/plan: must be string"]);
      expect((await caught(() => cas.putSchema({ type: "nonsense" }))).code).toBe("SCHEMA_INVALID");
      const text = await cas.putText("not a schema");
      expect((await caught(() => cas.validate(text, {}))).code).toBe("NODE_INVALID");
    });

    it("lists a node's refs: its schema node first, then its cas-ref fields", async () => {
      const { cas } = context.store;
      const { role, workflow, start, step1, step2 } = await storeChain(cas);
      const refs = await cas.refs(step1.hash);
      expect(refs[0]).toBe(cas.builtin("step"));
      expect(refs.slice(1).sort()).toEqual(
        [start, step1.output, step1.body, step1.detail, step1.assembledPrompt].sort(),
      );
      expect(await cas.refs(step2.hash)).toContain(step1.hash);
      expect(await cas.refs(start)).toEqual([cas.builtin("start"), workflow]);
      expect(await cas.refs(workflow)).toEqual([cas.builtin("workflow"), role]);
      expect(await cas.refs(role)).toEqual([]);
    });

    it("walks a chain breadth-first, each node once, with its depth", async () => {
      const { cas } = context.store;
      const { workflow, start, role, step1, step2 } = await storeChain(cas);
      const visited = [];
      for await (const item of cas.walk(step2.hash)) visited.push(item);
      const depthOf = new Map(visited.map((item) => [item.hash, item.depth]));
      expect(visited.length).toBe(depthOf.size);
      expect(visited[0]).toMatchObject({ hash: step2.hash, depth: 0 });
      expect(visited[0]!.node).toEqual(await cas.get(step2.hash));
      expect(depthOf.get(step1.hash)).toBe(1);
      expect(depthOf.get(start)).toBe(1);
      expect(depthOf.get(workflow)).toBe(2);
      expect(depthOf.get(role)).toBe(2);
      expect(depthOf.get(cas.builtin("text"))).toBe(2);
      const depths = visited.map((item) => item.depth);
      expect(depths).toEqual([...depths].sort((a, b) => a - b));

      const shallow = [];
      for await (const item of cas.walk(step2.hash, { maxDepth: 1 })) shallow.push(item);
      expect(shallow.every((item) => item.depth <= 1)).toBe(true);
      expect(shallow.length).toBeLessThan(visited.length);
    });

    it("lists and removes stored nodes", async () => {
      const { cas } = context.store;
      const a = await cas.putText("a");
      const b = await cas.putText("b");
      const listed = new Set<string>();
      for await (const hash of cas.backend.list()) listed.add(hash);
      expect(listed).toEqual(new Set([cas.builtin("text"), a, b]));
      await cas.backend.remove([a]);
      expect(await cas.has(a)).toBe(false);
      expect(await cas.backend.read(a)).toBeNull();
      expect(await cas.getText(b)).toBe("b");
    });

    it("refuses content that hashes right but is not a { type, payload } node", async () => {
      const { cas } = context.store;
      for (const content of ["not json", '{"type":"schema"}', '{"payload":1,"type":"lowercase"}']) {
        const hash = hashBytes(Buffer.from(content));
        await cas.backend.write([{ hash, bytes: Buffer.from(content), type: "schema", refs: [] }]);
        const error = await caught(() => cas.get(hash));
        expect(error.code).toBe("CAS_CORRUPT");
        expect(error.message).toContain(cas.backend.locate(hash));
        expect(error.details).toMatchObject({ hash });
      }
    });

    it.skipIf(!hooks.corrupt)(
      "verifies a node's bytes on read, naming where it lives",
      async () => {
        const { cas } = context.store;
        const hash = await cas.putText("a longer text that gets cut");
        await hooks.corrupt!(context.store, hash);
        const error = await caught(() => cas.get(hash));
        expect(error.code).toBe("CAS_CORRUPT");
        expect(error.message).toContain(cas.backend.locate(hash));
        expect(error.message).toContain("does not match its name");
        expect(error.details).toEqual({ hash, file: cas.backend.locate(hash) });
        expect(error.hint).toContain("uwf cas verify");
        expect((await caught(() => cas.getText(hash))).code).toBe("CAS_CORRUPT");
      },
    );

    it.skipIf(!hooks.corrupt)("repairs a corrupt node when it is put again", async () => {
      const { cas } = context.store;
      const hash = await cas.putText("precious");
      await hooks.corrupt!(context.store, hash);
      expect(await cas.putText("precious")).toBe(hash);
      expect(await cas.getText(hash)).toBe("precious");
      expect((await context.store.verify()).corrupt).toEqual([]);
    });
  });
}
