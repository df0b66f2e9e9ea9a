import type { StoreReindexDocument } from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["store", "reindex"],
  summary: "rebuild the index `thread list` and `thread tree` read, from the thread pointers",
  description:
    "On the filesystem, lists read a small index under UWF_HOME/index/threads (kept with every pointer write, rebuilt by itself when missing or stale) and re-read the pointers of the threads they show. Rebuild it after copying or editing pointers by hand. On PostgreSQL the database keeps its own indexes: nothing to do.",
  examples: ["uwf store reindex"],
  async run(ctx) {
    const store = await ctx.store();
    const rebuilt = await store.threads.reindex();
    const doc: StoreReindexDocument = {
      store: store.location,
      indexed: rebuilt !== null,
      threads: rebuilt?.threads ?? 0,
    };
    return result(doc, (d) =>
      d.indexed
        ? `rebuilt the thread index of ${d.store}: ${d.threads} thread${d.threads === 1 ? "" : "s"}`
        : `${d.store} keeps its indexes in the database: nothing to rebuild`,
    );
  },
});
