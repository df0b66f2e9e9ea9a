import { mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeStoreConformance } from "./__testing__/conformance.js";
import { openStore } from "./open-store.js";

describeStoreConformance(
  "filesystem",
  async () => {
    const home = await mkdtemp(join(tmpdir(), "uwf-conformance-"));
    const options = { home };
    const store = await openStore(options);
    return {
      store,
      options,
      async cleanup() {
        await store.close();
        await rm(home, { recursive: true, force: true });
      },
    };
  },
  {
    async corrupt(store, hash) {
      const file = store.cas.backend.locate(hash);
      const bytes = await readFile(file);
      await writeFile(file, bytes.subarray(0, Math.floor(bytes.length / 2)));
    },
    async corruptPointer(store, id) {
      await writeFile(store.threads.locate(id), "{ half a poin");
    },
    async rewritePointer(store, id, text) {
      await writeFile(store.threads.locate(id), text);
    },
    async corruptRegistry(store, name) {
      await writeFile(join(store.home, "workflows", `${name}.json`), "[]");
    },
    async backdate(store, hash, ageMs) {
      const then = new Date(Date.now() - ageMs);
      await utimes(store.cas.backend.locate(hash), then, then);
    },
  },
);
