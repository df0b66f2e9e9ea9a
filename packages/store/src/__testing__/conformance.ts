import { afterEach, beforeEach, describe } from "vitest";
import type { Store } from "../api.js";
import { openStore } from "../open-store.js";
import { describeCasConformance } from "./conformance-cas.js";
import { describeClaimConformance } from "./conformance-claims.js";
import type {
  ConformanceContext,
  ConformanceFixture,
  ConformanceHooks,
} from "./conformance-context.js";
import { describeGcConformance } from "./conformance-gc.js";
import { describeIdConformance } from "./conformance-ids.js";
import { describeLeaseConformance } from "./conformance-leases.js";
import { describeProcessConformance } from "./conformance-processes.js";
import { describeRegistryConformance } from "./conformance-registry.js";
import { describeThreadConformance } from "./conformance-threads.js";
import { killStoreWorkers } from "./store-workers.js";

/**
 * The store conformance suite: every backend runs this file unchanged (like abstract-level's
 * suite), so the filesystem and PostgreSQL stores behave alike for every caller. Tests go
 * through the `Store` interface of api.ts only; what cannot be done through it (damaging stored
 * data, ageing a node) is asked of the backend through its hooks (conformance-context.ts).
 */
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
    describeClaimConformance(context);
    describeGcConformance(context);
    if (hooks.processes !== false) describeProcessConformance(context);
  });
}
