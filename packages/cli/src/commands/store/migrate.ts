import type { StoreMigrateDocument } from "@united-workforce/engine";
import { storeBackends } from "../../store-backends.js";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["store", "migrate"],
  interruptible: true,
  summary: "copy this store into another (filesystem ↔ PostgreSQL), verifying every hash",
  description:
    "Copies every node (re-hashed on both sides), thread pointer and registry entry; running it again copies only what is missing. Refuses while an exec runs, and never overwrites a different thread or workflow in the target. Point config.yaml's `store:` at the target afterwards.",
  options: [
    {
      flags: "--to <store>",
      type: "string",
      required: true,
      description: "the target: fs (under UWF_HOME) or a postgres://user@host/db URL",
      hint: "e.g. --to postgres://uwf@127.0.0.1:5432/uwf, or --to fs to copy back",
    },
  ],
  examples: [
    "uwf store migrate --to postgres://uwf@db.internal:5432/uwf",
    "UWF_STORE=postgres://uwf@db.internal/uwf uwf store migrate --to fs",
  ],
  async run(ctx, _args, options) {
    const { migrateStore } = await import("@united-workforce/engine");
    const { openStore, readStoreConfig, storeOptionsFrom } = await import(
      "@united-workforce/store"
    );
    const from = await ctx.store();
    const target = storeOptionsFrom(ctx.home, readStoreConfig(ctx.home), {});
    const to = await openStore({ ...target, url: options.to, backends: storeBackends });
    try {
      const doc: StoreMigrateDocument = await migrateStore(from, to, (line) => ctx.progress(line));
      ctx.events.emit("store.migrate", { from: doc.from, to: doc.to, nodes: doc.nodes });
      return result(doc, (d) =>
        [
          `copied ${d.from} → ${d.to}`,
          `  ${d.nodes} nodes verified (${d.nodesWritten} new there)`,
          `  ${d.threads} threads (${d.threadsSkipped} already there)`,
          `  ${d.workflows} workflows (${d.workflowsSkipped} already there)`,
          `Point config.yaml's \`store:\` (or UWF_STORE) at ${d.to} to use it.`,
        ].join("\n"),
      );
    } finally {
      await to.close();
    }
  },
});
