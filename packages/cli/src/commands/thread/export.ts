import { resolve } from "node:path";
import type { ThreadExportDocument } from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";
import { outputStream } from "../output-file.js";

export default defineCommand({
  path: ["thread", "export"],
  summary: "write a thread (its fan-out children, and its forks) to one self-contained bundle file",
  description:
    "The bundle holds the thread's pointer and every node it reaches: the chain, outputs, bodies, details, prompts, the workflow and its schemas. The threads its fan-outs made (and theirs, at every depth) come with it, joined or not, so the parent arrives with its children. `uwf thread import` verifies it before it writes anything, in any store (filesystem or PostgreSQL). It may hold prompts and outputs: it is written for the owner only.",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  options: [
    {
      flags: "-o, --output <file>",
      type: "string",
      description:
        "where to write it (default: <thread>.uwf-bundle in the current directory); a device or FIFO (/dev/stdout, a named pipe) is written into, a directory or other special file refused",
    },
    {
      flags: "--forks",
      type: "boolean",
      description:
        "also the threads that share its StartNode (made by `uwf step fork`), with their fan-out children",
    },
    { flags: "--force", type: "boolean", description: "replace an existing regular file" },
  ],
  examples: ["uwf thread export 01JD… -o run.uwf-bundle", "uwf thread export 01JD… --forks"],
  async run(ctx, [thread], options) {
    const { exportBundle, withFanoutChildren } = await import("@united-workforce/engine");
    const store = await ctx.store();
    const file = resolve(ctx.cwd, options.output ?? `${thread}.uwf-bundle`);
    // Checked before any work, like every `-o`; the bundle is written as it is read.
    const out = outputStream(file, { force: options.force === true });
    let ids: string[];
    let nodes = -1;
    let bytes: number;
    try {
      const chosen = [thread!];
      if (options.forks) {
        const { start } = await store.threads.get(thread!);
        for await (const item of store.threads.all()) {
          if (item.id !== thread && item.pointer?.start === start) chosen.push(item.id);
        }
      }
      ids = await withFanoutChildren(store, chosen);
      for await (const line of exportBundle(store, ids)) {
        out.write(`${line}\n`);
        nodes++;
      }
      ({ bytes } = out.end());
    } catch (error) {
      out.abandon();
      throw error;
    }
    const doc: ThreadExportDocument = { file, threads: ids, nodes, bytes };
    return result(
      doc,
      (d) =>
        `wrote ${d.file}: ${d.threads.length} thread${d.threads.length === 1 ? "" : "s"}, ${d.nodes} nodes, ${d.bytes} bytes`,
    );
  },
});
