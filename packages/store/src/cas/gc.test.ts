import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTempStore } from "../__testing__/store-fixtures.js";
import type { Store } from "../api.js";
import { collectGarbage } from "./gc.js";

let store: Store;

let removeTemp: () => Promise<void>;

beforeEach(async () => {
  ({ store, remove: removeTemp } = await openTempStore("gc"));
});
afterEach(() => removeTemp());

/** The refs of each node, read one by one. */
const refsOf =
  (store: Store) =>
  async (hashes: readonly string[]): Promise<Map<string, readonly string[]>> =>
    new Map(
      await Promise.all(hashes.map(async (hash) => [hash, await store.cas.refs(hash)] as const)),
    );

describe("collectGarbage", () => {
  it("never deletes a node written after the store was listed", async () => {
    const { cas } = store;
    const kept = await cas.putText("a root");
    const garbage = await cas.putText("garbage");
    let late = "";
    const report = await collectGarbage(
      { backend: cas.backend, refs: refsOf(store) },
      // Roots are read after listing: here a writer stores a node before moving its pointer.
      async () => {
        late = await cas.putText("written while gc runs");
        return [kept];
      },
      { dryRun: false },
    );
    expect(report).toMatchObject({ roots: 1, unreachable: [garbage], deleted: 1 });
    expect(await cas.has(late)).toBe(true);
    expect(await cas.has(kept)).toBe(true);
  });

  it("judges recent nodes by the given clock", async () => {
    const { cas } = store;
    const garbage = await cas.putText("garbage");
    const graph = { backend: cas.backend, refs: refsOf(store) };
    const inAnHour = Date.now() + 3_600_000;
    const later = await collectGarbage(graph, async () => [], {
      dryRun: true,
      keepRecentMs: 60_000,
      nowMs: inAnHour,
    });
    expect(later).toMatchObject({ unreachable: [garbage], recent: [] });
    const now = await collectGarbage(graph, async () => [], { dryRun: true, keepRecentMs: 60_000 });
    expect(now).toMatchObject({ unreachable: [], recent: [garbage] });
  });
});
