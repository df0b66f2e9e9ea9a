import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll } from "vitest";
// The shared suite is the store's test source; its store API is taken from the same source.
import { assertBuiltIsFresh } from "../../store/src/__testing__/built-store.js";
import { describeStoreConformance } from "../../store/src/__testing__/conformance.js";
import { openStore, type Store, type StoreOptions } from "../../store/src/index.js";
import { packageDirs } from "./__testing__/package-dirs.js";
import { usePostgres } from "./__testing__/server.js";
import { connect, type Database } from "./connection.js";

const pg = usePostgres();

// Worker processes open the store through the built packages: this one's `dist` too.
beforeAll(() => {
  assertBuiltIsFresh(packageDirs);
});

/** A connection to each open store's database, for the hooks that damage or age rows. */
const admins = new Map<Store, Database>();

function admin(store: Store): Database {
  const db = admins.get(store);
  if (db === undefined) throw new Error("no admin connection for this store");
  return db;
}

describeStoreConformance(
  "PostgreSQL",
  async () => {
    const home = await mkdtemp(join(tmpdir(), "uwf-conformance-pg-"));
    const url = await pg.migratedDatabase();
    const options: StoreOptions = { home, url, backends: { postgres: () => import("./index.js") } };
    const store = await openStore(options);
    const db = await connect(url);
    admins.set(store, db);
    return {
      store,
      options,
      async cleanup() {
        admins.delete(store);
        await store.close();
        await db.close();
        await pg.server().dropDatabase(url);
        await rm(home, { recursive: true, force: true });
      },
    };
  },
  {
    workerBackends: { postgres: pathToFileURL(join(packageDirs.dist, "index.js")).href },
    async corrupt(store, hash) {
      // What a truncated file is on disk: the first half of the bytes.
      await admin(store).execute(
        "update uwf_cas_nodes set bytes = substring(bytes from 1 for length(bytes) / 2) where hash = $1",
        [hash],
      );
    },
    async corruptPointer(store, id) {
      await admin(store).execute("update uwf_threads set pointer = '{ half a poin' where id = $1", [
        id,
      ]);
    },
    async rewritePointer(store, id, text) {
      await admin(store).execute("update uwf_threads set pointer = $2 where id = $1", [id, text]);
    },
    async corruptRegistry(store, name) {
      await admin(store).execute("update uwf_registry set entry = '[]' where name = $1", [name]);
    },
    async backdate(store, hash, ageMs) {
      await admin(store).execute(
        "update uwf_cas_nodes set written_at = now() - $2 * interval '1 millisecond' where hash = $1",
        [hash, ageMs],
      );
    },
  },
);
