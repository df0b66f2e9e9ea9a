/**
 * For tests only: a store in another process. Child processes cannot load TypeScript, so this
 * imports the BUILT store (argv[2], a file URL of dist/index.js) and opens it with the
 * StoreOptions in argv[3], loading backend packages from the file URLs in argv[4]
 * (`{ "postgres": "file:…/store-postgres/dist/index.js" }`). It prints `{"ready":<pid>}`, then answers each JSON request on stdin,
 * `{"id","op","args"}`, with one JSON line: `{"id","value"}` or `{"id","error"}`. Leases it
 * acquires stay held (and renewed) until released, until stdin ends, or until it is killed.
 */
import { createInterface } from "node:readline";

const [distUrl, optionsJson, backendsJson] = process.argv.slice(2);
const { openStore } = await import(distUrl);
const backends = Object.fromEntries(
  Object.entries(JSON.parse(backendsJson)).map(([name, url]) => [name, () => import(url)]),
);
const store = await openStore({ ...JSON.parse(optionsJson), backends });
const leases = new Map();

const operations = {
  swap: (next, expectedRev) => store.threads.swap(next, expectedRev),
  registryAdd: async (name, hash) => (await store.registry.add(name, hash)).changed,
  acquire: async (thread) => {
    const { lease, replaced } = await store.leases.acquire(thread, { command: "store-worker" });
    leases.set(thread, lease);
    return { info: lease.info(), replaced };
  },
  release: async (thread) => {
    await leases.get(thread)?.release();
    leases.delete(thread);
    return null;
  },
};

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

send({ ready: process.pid });
for await (const line of createInterface({ input: process.stdin })) {
  const { id, op, args } = JSON.parse(line);
  try {
    send({ id, value: (await operations[op](...args)) ?? null });
  } catch (error) {
    send({
      id,
      error: {
        code: error?.code ?? null,
        message: String(error?.message),
        details: error?.details,
      },
    });
  }
}
for (const lease of leases.values()) await lease.release();
await store.close();
