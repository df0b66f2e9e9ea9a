import { describe, expect, it } from "vitest";
import { resolveHash, resolveThread } from "../ids/resolve.js";
import type { ConformanceContext } from "./conformance-context.js";
import { caught, pointer } from "./store-fixtures.js";

/** Prefixes of hashes and thread ids, resolved as git resolves abbreviated object names. */
export function describeIdConformance(context: ConformanceContext): void {
  // Long by design: the id-prefix cases of the suite, one `it` each, in one describe block.
  describe("id prefixes", () => {
    it("lists only the stored hashes that start with a prefix, sorted and limited", async () => {
      const { cas } = context.store;
      const hashes: string[] = [];
      for (let i = 0; i < 40; i++) hashes.push(await cas.putText(`text ${i}`));
      const hash = hashes[0]!;
      expect(await cas.backend.withPrefix(hash, 5)).toEqual([hash]);
      expect(await cas.backend.withPrefix(hash.slice(0, 6), 5)).toEqual([hash]);
      const first = hashes[1]![0]!;
      const all: string[] = [];
      for await (const h of cas.backend.list()) all.push(h);
      // A one-character prefix spans several shard folders.
      expect(await cas.backend.withPrefix(first, 1000)).toEqual(
        all.filter((h) => h.startsWith(first)).sort(),
      );
      expect(await cas.backend.withPrefix(first, 1)).toHaveLength(1);
      expect(await cas.backend.withPrefix("ZZZZZZZZZZZZZ", 5)).toEqual([]);
    });

    it("resolves a unique hash prefix in any case, and refuses short or ambiguous ones", async () => {
      const store = context.store;
      const hash = await store.cas.putText("hello");
      expect(hash).toBe("7MSKT4YB69AED");
      expect(await resolveHash(store, "7msk")).toBe(hash);
      expect(await resolveHash(store, "7MSKT4YB69AED")).toBe(hash);
      // Crockford Base32 reads O as 0 and I, L as 1.
      expect(await resolveHash(store, " 7mskt4yb69aed ")).toBe(hash);
      // A built-in schema resolves whether it was written or not.
      const text = store.cas.builtin("text");
      expect(await resolveHash(store, text.slice(0, 8).toLowerCase())).toBe(text);

      const short = await caught(() => resolveHash(store, "7ms"));
      expect([short.code, short.message]).toEqual([
        "HASH_INVALID",
        'hash prefix "7ms" is too short: give at least 4 characters',
      ]);
      expect((await caught(() => resolveHash(store, "7MSK!"))).code).toBe("HASH_INVALID");
      const missing = await caught(() => resolveHash(store, "ZZZZZZ"));
      expect([missing.code, missing.message]).toEqual([
        "CAS_NOT_FOUND",
        "no node's hash starts with ZZZZZZ",
      ]);

      // Find two stored hashes sharing their first four characters.
      const byPrefix = new Map<string, string[]>();
      for (let i = 0; ; i++) {
        const h = await store.cas.putText(`collide ${i}`);
        const same = byPrefix.get(h.slice(0, 4)) ?? [];
        same.push(h);
        byPrefix.set(h.slice(0, 4), same);
        if (same.length === 2) break;
      }
      const [prefix, pair] = [...byPrefix].find(([, hs]) => hs.length === 2)!;
      const error = await caught(() => resolveHash(store, prefix.toLowerCase()));
      expect(error.code).toBe("ID_AMBIGUOUS");
      expect(error.message).toBe(
        `hash prefix ${prefix} is ambiguous: it matches ${[...pair].sort().join(", ")}`,
      );
      expect(error.details).toEqual({ prefix, candidates: [...pair].sort() });
    });

    it("resolves a unique thread id prefix in any case, and refuses ambiguous ones", async () => {
      const store = context.store;
      const a = pointer({ thread: "01K0000000AAAAAAAAAAAAAAAA" });
      const b = pointer({ thread: "01K0000000BBBBBBBBBBBBBBBB" });
      const c = pointer({ thread: "01K1000000CCCCCCCCCCCCCCCC" });
      for (const p of [a, b, c]) await store.threads.create(p);
      expect(await store.threads.withPrefix("01K0", 10)).toEqual([a.thread, b.thread]);
      expect(await store.threads.withPrefix("01K0", 1)).toEqual([a.thread]);
      expect(await store.threads.withPrefix("7ZZZ", 10)).toEqual([]);
      expect(await resolveThread(store, "01k1")).toBe(c.thread);
      expect(await resolveThread(store, "01k0000000b")).toBe(b.thread);
      expect(await resolveThread(store, b.thread.toLowerCase())).toBe(b.thread);
      const error = await caught(() => resolveThread(store, "01k0"));
      expect([error.code, error.message]).toEqual([
        "ID_AMBIGUOUS",
        `thread id prefix 01K0 is ambiguous: it matches ${a.thread}, ${b.thread}`,
      ]);
      expect((await caught(() => resolveThread(store, "01K"))).code).toBe("USAGE");
      expect((await caught(() => resolveThread(store, "01K9"))).code).toBe("THREAD_NOT_FOUND");
    });
  });
}
