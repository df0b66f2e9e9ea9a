import { isUwfError, type UwfError } from "@united-workforce/util";
import { describe, expect, it } from "vitest";
import type { RegistryBackend, RegistryEntry } from "../api.js";
import { usePostgres } from "./__testing__/server.js";
import { connect } from "./connection.js";
import { createPostgresRegistry } from "./registry-backend.js";

const pg = usePostgres();

const hash = (n: number) => String(n).padStart(13, "0");

function entry(name: string, ...versions: number[]): RegistryEntry {
  const history = versions.map((v) => ({
    hash: hash(v),
    at: `2024-01-0${(v % 9) + 1}T00:00:00.000Z`,
  }));
  return { name, current: history[0]!.hash, history };
}

async function caught(promise: Promise<unknown>): Promise<UwfError> {
  try {
    await promise;
  } catch (error) {
    if (isUwfError(error)) return error;
    throw error;
  }
  throw new Error("expected a UwfError");
}

describe("PostgreSQL registry backend", () => {
  it("compare-and-swaps one entry: create, replace, remove", async () => {
    const { db } = await pg.migrated();
    const registry = createPostgresRegistry(db);
    expect(await registry.get("flow")).toBeNull();
    expect(await registry.swap("flow", null, entry("flow", 1))).toBe(true);
    expect(await registry.swap("flow", null, entry("flow", 9))).toBe(false);
    expect(await registry.get("flow")).toEqual(entry("flow", 1));
    expect(await registry.swap("flow", entry("flow", 1), entry("flow", 2, 1))).toBe(true);
    // Stale expectation (another writer came first): nothing changes.
    expect(await registry.swap("flow", entry("flow", 1), entry("flow", 3, 1))).toBe(false);
    expect(await registry.get("flow")).toEqual(entry("flow", 2, 1));
    expect(await registry.swap("flow", entry("flow", 2, 1), null)).toBe(true);
    expect(await registry.get("flow")).toBeNull();
    expect(await registry.swap("flow", entry("flow", 2, 1), null)).toBe(false);
  });

  it("under contention no version is lost: every writer's read-modify-write lands", async () => {
    const { url, db } = await pg.migrated();
    const writers = await Promise.all(Array.from({ length: 6 }, () => connect(url)));
    try {
      await createPostgresRegistry(db).swap("flow", null, entry("flow", 0));
      const push = async (registry: RegistryBackend, version: number) => {
        for (;;) {
          const current = (await registry.get("flow"))!;
          const next = {
            name: "flow",
            current: hash(version),
            history: [{ hash: hash(version), at: "2024-02-01T00:00:00.000Z" }, ...current.history],
          };
          if (await registry.swap("flow", current, next)) return;
        }
      };
      await Promise.all(writers.map((w, i) => push(createPostgresRegistry(w), i + 1)));
      const final = await createPostgresRegistry(db).get("flow");
      expect(final?.history.map((h) => h.hash).sort()).toEqual([0, 1, 2, 3, 4, 5, 6].map(hash));
    } finally {
      await Promise.all(writers.map((w) => w.close()));
    }
  });

  it("of concurrent swaps from the same entry, exactly one wins", async () => {
    const { url, db } = await pg.migrated();
    const writers = await Promise.all(Array.from({ length: 6 }, () => connect(url)));
    try {
      await createPostgresRegistry(db).swap("flow", null, entry("flow", 0));
      const results = await Promise.all(
        writers.map((w, i) =>
          createPostgresRegistry(w).swap("flow", entry("flow", 0), entry("flow", i + 1, 0)),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    } finally {
      await Promise.all(writers.map((w) => w.close()));
    }
  });

  it("reports a hand-broken row by name and scans past it", async () => {
    const { url, db } = await pg.migrated();
    const registry = createPostgresRegistry(db);
    await registry.swap("b-flow", null, entry("b-flow", 1));
    await registry.swap("a-flow", null, entry("a-flow", 2));
    await db.execute(
      `insert into uwf_registry (name, entry) values ('c-flow', '{"name": "c-flow"}')`,
    );
    const where = `${url} uwf_registry name=c-flow`;
    expect(registry.locate("c-flow")).toBe(where);
    const error = await caught(registry.get("c-flow"));
    expect(error.code).toBe("REGISTRY_CORRUPT");
    expect(error.message).toBe(`${where}: \`current\` is missing or not a CAS hash`);
    expect((await caught(registry.swap("c-flow", entry("c-flow", 1), null))).code).toBe(
      "REGISTRY_CORRUPT",
    );
    expect(await registry.scan()).toEqual({
      entries: [entry("a-flow", 2), entry("b-flow", 1)],
      problems: [
        { name: "c-flow", location: where, problem: "`current` is missing or not a CAS hash" },
      ],
    });
    expect((await caught(registry.get("../etc"))).code).toBe("USAGE");
  });
});
