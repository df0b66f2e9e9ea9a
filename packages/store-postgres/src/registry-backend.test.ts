import type { RegistryEntry } from "@united-workforce/store";
import { describe, expect, it } from "vitest";
import { caught } from "../../store/src/__testing__/store-fixtures.js";
import { usePostgres } from "./__testing__/server.js";
import { createPostgresRegistry } from "./registry-backend.js";

/**
 * The backend primitive under the shared registry rules, and rows edited by hand. The rules
 * themselves (history, rollback, contention) are in the conformance suite.
 */

const pg = usePostgres();

const hash = (n: number) => String(n).padStart(13, "0");

function entry(name: string, ...versions: number[]): RegistryEntry {
  const history = versions.map((v) => ({ hash: hash(v), at: `2024-01-0${v + 1}T00:00:00.000Z` }));
  return { name, current: history[0]!.hash, history };
}

describe("PostgreSQL registry backend", () => {
  it("compare-and-swaps one entry: create, replace, remove", async () => {
    const { db } = await pg.migrated();
    const registry = createPostgresRegistry(db);
    expect(await registry.get("flow")).toBeNull();
    expect(await registry.swap("flow", null, entry("flow", 1))).toBe(true);
    expect(await registry.swap("flow", null, entry("flow", 8))).toBe(false);
    expect(await registry.get("flow")).toEqual(entry("flow", 1));
    expect(await registry.swap("flow", entry("flow", 1), entry("flow", 2, 1))).toBe(true);
    // A stale expectation (another writer came first) changes nothing.
    expect(await registry.swap("flow", entry("flow", 1), entry("flow", 3, 1))).toBe(false);
    expect(await registry.get("flow")).toEqual(entry("flow", 2, 1));
    expect(await registry.swap("flow", entry("flow", 2, 1), null)).toBe(true);
    expect(await registry.get("flow")).toBeNull();
    expect(await registry.swap("flow", entry("flow", 2, 1), null)).toBe(false);
    expect(await registry.remove("flow")).toBe(false);
  });

  it("reports a hand-broken row by name, scans past it, and removes it", async () => {
    const { url, db } = await pg.migrated();
    const registry = createPostgresRegistry(db);
    await registry.swap("b-flow", null, entry("b-flow", 1));
    await registry.swap("a-flow", null, entry("a-flow", 2));
    await db.execute(
      `insert into uwf_registry (name, entry) values ('c-flow', '{"name": "c-flow"}')`,
    );
    const where = `${url} uwf_registry name=c-flow`;
    expect(registry.locate("c-flow")).toBe(where);
    const error = await caught(() => registry.get("c-flow"));
    expect(error.code).toBe("REGISTRY_CORRUPT");
    expect(error.message).toBe(`${where}: \`current\` is missing or not a CAS hash`);
    expect((await caught(() => registry.swap("c-flow", entry("c-flow", 1), null))).code).toBe(
      "REGISTRY_CORRUPT",
    );
    expect(await registry.scan()).toEqual({
      entries: [entry("a-flow", 2), entry("b-flow", 1)],
      problems: [
        { name: "c-flow", location: where, problem: "`current` is missing or not a CAS hash" },
      ],
    });
    expect(await registry.remove("c-flow")).toBe(true);
    expect((await registry.scan()).problems).toEqual([]);
  });
});
