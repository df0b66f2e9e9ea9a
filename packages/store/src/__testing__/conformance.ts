import { afterEach, beforeEach, describe } from "vitest";
import type { Store, StoreOptions } from "../api.js";
import { openStore } from "../open-store.js";
import { describeCasConformance } from "./conformance-cas.js";
import { describeGcConformance } from "./conformance-gc.js";
import { describeIdConformance } from "./conformance-ids.js";
import { describeLeaseConformance } from "./conformance-leases.js";
import { describeProcessConformance } from "./conformance-processes.js";
import { describeRegistryConformance } from "./conformance-registry.js";
import { describeThreadConformance } from "./conformance-threads.js";
import { killStoreWorkers, type WorkerBackends } from "./store-workers.js";

/**
 * The store conformance suite: every backend runs this file unchanged (like abstract-level's
 * suite), so the filesystem and PostgreSQL stores behave alike for every caller. Tests go
 * through the `Store` interface of api.ts only; what cannot be done through it (damaging stored
 * data, ageing a node) is asked of the backend through the hooks below.
 */

/** A fresh, empty store for one test. */
export interface ConformanceFixture {
  store: Store;
  /**
   * What opens this same store again with `openStore`: from another process (workers import
   * the built store), or from this one posing as another machine (`host`, `leaseTtlMs`).
   */
  options: StoreOptions;
  /** Close the store and delete everything the fixture made. */
  cleanup(): Promise<void>;
}

/** Backend-specific ways to damage or age stored data; a test that needs a missing one is skipped. */
export interface ConformanceHooks {
  /** Make the stored bytes of node `hash` no longer hash to it (as a truncated file would). */
  corrupt?(store: Store, hash: string): Promise<void>;
  /** Make the stored pointer of thread `id` (which exists) unreadable. */
  corruptPointer?(store: Store, id: string): Promise<void>;
  /** Make the registry entry `name` (which exists) unreadable. */
  corruptRegistry?(store: Store, name: string): Promise<void>;
  /** Make node `hash` look written `ageMs` ago (for gc's `keepRecentMs`). */
  backdate?(store: Store, hash: string, ageMs: number): Promise<void>;
  /**
   * Run the tests that start worker processes importing the built store (`dist`, see
   * built-store.ts); default true. They need `pnpm exec tsc -b packages/store` first.
   */
  processes?: boolean;
  /**
   * The file URL of each built backend package the fixture's `options.backends` loads: worker
   * processes import it from there (functions do not cross a process boundary).
   */
  workerBackends?: WorkerBackends;
}

/** What the sections of the suite share; fields are read while a test runs. */
export interface ConformanceContext {
  readonly store: Store;
  readonly options: StoreOptions;
  readonly hooks: ConformanceHooks;
  /** The same store opened again in this process, e.g. as another host; closed after the test. */
  peer(overrides: Partial<StoreOptions>): Promise<Store>;
}

export function describeStoreConformance(
  name: string,
  open: () => Promise<ConformanceFixture>,
  hooks: ConformanceHooks = {},
): void {
  describe(`${name} store conformance`, () => {
    let fixture: ConformanceFixture | undefined;
    const peers: Store[] = [];
    const current = (): ConformanceFixture => {
      if (fixture === undefined) throw new Error("the conformance fixture is not open");
      return fixture;
    };
    const context: ConformanceContext = {
      get store() {
        return current().store;
      },
      get options() {
        return current().options;
      },
      hooks,
      async peer(overrides) {
        const peer = await openStore({ ...current().options, ...overrides });
        peers.push(peer);
        return peer;
      },
    };

    beforeEach(async () => {
      fixture = await open();
    });
    afterEach(async () => {
      await killStoreWorkers();
      for (const peer of peers.splice(0)) await peer.close();
      await fixture?.cleanup();
      fixture = undefined;
    });

    describeCasConformance(context);
    describeThreadConformance(context);
    describeIdConformance(context);
    describeRegistryConformance(context);
    describeLeaseConformance(context);
    describeGcConformance(context);
    if (hooks.processes !== false) describeProcessConformance(context);
  });
}
