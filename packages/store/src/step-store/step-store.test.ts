import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ThreadPointer } from "@united-workforce/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type Chain,
  caught,
  chainPointer,
  openTempStore,
  storeChain,
} from "../__testing__/store-fixtures.js";
import type { Store } from "../api.js";
import { Cas } from "../cas/cas.js";
import type { CasBackend } from "../cas/cas-backend.js";
import { type ServedStepStore, serveStepStore } from "./serve.js";
import { openServedStore, type StepStore } from "./served-store.js";

let store: Store;
let removeTemp: () => Promise<void>;
let chain: Chain;
let pointer: ThreadPointer;
/** uwf's side: a CAS over the store's backend that counts what reaches the backend. */
let cas: Cas;
let reads: string[];
let served: ServedStepStore;
let adapter: StepStore;

beforeEach(async () => {
  ({ store, remove: removeTemp } = await openTempStore("step-store"));
  chain = await storeChain(store.cas);
  reads = [];
  const backend = store.cas.backend;
  const counted: CasBackend = {
    ...backend,
    read: (hash) => {
      reads.push(hash);
      return backend.read(hash);
    },
    async readMany(hashes, refsOf) {
      reads.push(`many:${hashes.length}+refs:${refsOf.length}`);
      const found = new Map<string, Uint8Array>();
      const wanted = [...hashes];
      for (const hash of refsOf) wanted.push(...(await store.cas.refs(hash)));
      for (const hash of wanted) {
        const bytes = await backend.read(hash);
        if (bytes !== null) found.set(hash, bytes);
      }
      return found;
    },
  };
  cas = new Cas(counted);
  pointer = chainPointer(chain);
  served = await serveStepStore({ home: store.home, cas, threads: store.threads }, pointer);
  adapter = await openServedStore(served.path);
});
afterEach(async () => {
  await adapter.close();
  served.close();
  await removeTemp();
});

describe("the step store uwf serves an adapter", () => {
  it("gives the step's thread as uwf holds it, without reading it", async () => {
    expect(await adapter.threads.get(pointer.thread)).toEqual(pointer);
  });

  it("reads the thread as stored now when asked for it fresh (guidance steered meanwhile)", async () => {
    await store.threads.create(pointer);
    const stored = await store.threads.get(pointer.thread);
    const note = { text: "keep the API", at: stored.updatedAt, rev: (stored.rev ?? 0) + 1 };
    await store.threads.swap({ ...stored, guidance: [note] }, stored.rev ?? 0);
    expect(await adapter.threads.get(pointer.thread)).toEqual(pointer);
    expect((await adapter.freshPointer?.(pointer.thread))?.guidance).toEqual([note]);
  });

  it("reads nodes through uwf, and those uwf prefetched without a round trip", async () => {
    await cas.prefetch([chain.workflow, chain.start], [chain.workflow]);
    expect(reads).toEqual(["many:2+refs:1"]);
    expect(await adapter.cas.getPayload(chain.start, "start")).toMatchObject({
      workflow: chain.workflow,
    });
    expect(await adapter.cas.schema(chain.role)).toMatchObject({ required: ["$status"] });
    expect(reads).toEqual(["many:2+refs:1"]);
    expect(await adapter.cas.getText(chain.step1.body)).toBe("plan body 1");
    expect(reads).toEqual(["many:2+refs:1", chain.step1.body]);
  });

  it("writes the adapter's nodes through uwf, which checks them without reading them back", async () => {
    const batch = adapter.cas.batch();
    const output = await batch.put(chain.role, { $status: "done", plan: "served" });
    const body = batch.putText("written through uwf");
    const created = await batch.flush();
    expect(created).toContain(output);
    expect(created).toContain(body);
    expect(await store.cas.getText(body)).toBe("written through uwf");
    expect(await cas.getPayload(output)).toEqual({ $status: "done", plan: "served" });
    expect(await cas.has(body)).toBe(true);
    // Only the role's schema, which the adapter validated its output with.
    expect(reads).toEqual([chain.role]);
  });

  it("answers a missing node and a bad request with the store's own errors", async () => {
    expect(await adapter.cas.has("0000000000009")).toBe(false);
    const missing = await caught(() => adapter.cas.get("0000000000009"));
    expect(missing.code).toBe("CAS_NOT_FOUND");
    const listing = await caught(() => adapter.cas.backend.withPrefix("00", 5));
    expect(listing.code).toBe("STORE_UNAVAILABLE");
  });

  it("serves from the home's private run folder, and removes the socket when closed", () => {
    expect(served.path.startsWith(join(store.home, "run"))).toBe(true);
    expect(statSync(join(store.home, "run")).mode & 0o777).toBe(0o700);
    served.close();
    expect(existsSync(served.path)).toBe(false);
  });

  it("fails the adapter's next request once uwf has closed the store", async () => {
    served.close();
    const error = await caught(() => adapter.cas.get(chain.start));
    expect(error.code).toBe("STORE_UNAVAILABLE");
    expect(error.hint).toContain("uwf thread exec");
  });
});
