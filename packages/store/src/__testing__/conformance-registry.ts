import { describe, expect, it } from "vitest";
import type { ConformanceContext } from "./conformance-context.js";
import { caught } from "./store-fixtures.js";

const V1 = "0000000000001";
const V2 = "0000000000002";
const V3 = "0000000000003";
const CONTENDERS = 20;

export function describeRegistryConformance(context: ConformanceContext): void {
  // Long by design: the registry cases of the suite, one `it` each, in one describe block.
  const { hooks } = context;

  describe("registry", () => {
    it("adds versions newest first and ignores re-adding the current one", async () => {
      const { registry } = context.store;
      expect(await registry.get("plan")).toBeNull();
      const first = await registry.add("plan", V1);
      expect(first).toEqual({
        entry: { name: "plan", current: V1, history: [{ hash: V1, at: expect.any(String) }] },
        changed: true,
      });
      expect(await registry.add("plan", V1)).toEqual({ entry: first.entry, changed: false });
      await registry.add("plan", V2);
      const entry = await registry.get("plan");
      expect(entry).toMatchObject({ name: "plan", current: V2 });
      expect(entry!.history.map((item) => item.hash)).toEqual([V2, V1]);
      for (const item of entry!.history) expect(Date.parse(item.at)).not.toBeNaN();
      // An earlier version added again is a new newest version.
      await registry.add("plan", V1);
      expect((await registry.get("plan"))!.history.map((item) => item.hash)).toEqual([V1, V2, V1]);
    });

    it("rolls back to the previous distinct version, or to a named one, keeping history", async () => {
      const { registry } = context.store;
      await registry.add("plan", V1);
      await registry.add("plan", V2);
      await registry.add("plan", V3);
      expect((await registry.rollback("plan")).current).toBe(V2);
      const entry = await registry.rollback("plan", V1);
      expect(entry.current).toBe(V1);
      expect(entry.history.map((item) => item.hash)).toEqual([V1, V2, V3, V2, V1]);
      expect(await registry.rollback("plan", V1)).toEqual(entry);
      expect(await registry.get("plan")).toEqual(entry);
    });

    it("refuses rollbacks that cannot be done", async () => {
      const { registry } = context.store;
      expect((await caught(() => registry.rollback("missing"))).code).toBe("WORKFLOW_NOT_FOUND");
      await registry.add("plan", V1);
      expect((await caught(() => registry.rollback("plan"))).code).toBe("USAGE");
      expect((await caught(() => registry.rollback("plan", V2))).code).toBe("USAGE");
      expect((await caught(() => registry.rollback("plan", "bad"))).code).toBe("HASH_INVALID");
      expect((await registry.get("plan"))!.history).toHaveLength(1);
    });

    it("removes an entry", async () => {
      const { registry } = context.store;
      await registry.add("plan", V1);
      expect(await registry.remove("plan")).toBe(true);
      expect(await registry.remove("plan")).toBe(false);
      expect(await registry.get("plan")).toBeNull();
      expect(await registry.list()).toEqual([]);
      // A removed name starts a new history.
      expect((await registry.add("plan", V2)).entry.history.map((item) => item.hash)).toEqual([V2]);
    });

    it("validates names and hashes before touching storage", async () => {
      const { registry } = context.store;
      expect((await caught(() => registry.get("../secrets"))).code).toBe("USAGE");
      expect((await caught(() => registry.add("a/b", V1))).code).toBe("USAGE");
      expect((await caught(() => registry.remove(".hidden"))).code).toBe("USAGE");
      expect((await caught(() => registry.rollback("", V1))).code).toBe("USAGE");
      expect((await caught(() => registry.add("plan", "not-a-hash"))).code).toBe("HASH_INVALID");
      expect(await registry.list()).toEqual([]);
    });

    it("lists entries sorted by name", async () => {
      const { registry } = context.store;
      await registry.add("zeta", V1);
      await registry.add("alpha", V2);
      await registry.add("alpha", V3);
      const listed = await registry.list();
      expect(listed.map((entry) => [entry.name, entry.current])).toEqual([
        ["alpha", V3],
        ["zeta", V1],
      ]);
      expect(await registry.scan()).toEqual({ entries: listed, problems: [] });
    });

    it.skipIf(!hooks.corruptRegistry)(
      "reports an unreadable entry by name instead of failing the listing",
      async () => {
        const { registry } = context.store;
        await registry.add("alpha", V1);
        await registry.add("broken", V2);
        await hooks.corruptRegistry!(context.store, "broken");
        expect((await registry.list()).map((entry) => entry.name)).toEqual(["alpha"]);
        const { problems } = await registry.scan();
        expect(problems).toEqual([
          { name: "broken", location: expect.any(String), problem: expect.any(String) },
        ]);
        const location = problems[0]!.location;
        for (const run of [() => registry.get("broken"), () => registry.add("broken", V3)]) {
          const error = await caught(run);
          expect(error.code).toBe("REGISTRY_CORRUPT");
          expect(error.message.startsWith(`${location}: `)).toBe(true);
        }
      },
    );

    it(`keeps every version when ${CONTENDERS} adds of one name run at once`, async () => {
      const { registry } = context.store;
      const hashes = Array.from({ length: CONTENDERS }, (_, i) => `${i}`.padStart(13, "A"));
      const results = await Promise.all(hashes.map((hash) => registry.add("shared", hash)));
      expect(results.every((result) => result.changed)).toBe(true);
      const entry = (await registry.get("shared"))!;
      expect(entry.history.map((item) => item.hash).sort()).toEqual([...hashes].sort());
      expect(entry.current).toBe(entry.history[0]!.hash);
    });

    it("records one version when concurrent adds bring the same hash", async () => {
      const { registry } = context.store;
      const results = await Promise.all(
        Array.from({ length: CONTENDERS }, () => registry.add("same", V1)),
      );
      expect(results.filter((result) => result.changed)).toHaveLength(1);
      expect((await registry.get("same"))!.history).toHaveLength(1);
    });
  });
}
