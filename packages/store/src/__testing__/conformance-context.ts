import type { Store, StoreOptions } from "../api.js";
import type { WorkerBackends } from "./store-workers.js";

/**
 * What the store conformance suite (conformance.ts) is given and what its sections share:
 * the fixture a backend opens, the hooks it offers, the context each section reads.
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
  /** Replace the stored pointer of thread `id` with `text`, as a person editing it by hand. */
  rewritePointer?(store: Store, id: string, text: string): Promise<void>;
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
