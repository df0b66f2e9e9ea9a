import { resolve } from "node:path";
import type { ThreadReceiptDocument } from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";
import { outputFile } from "../output-file.js";

export default defineCommand({
  path: ["thread", "receipt"],
  summary:
    "write a thread's receipt: an in-toto statement of the commits and trees its steps made, each step as evidence",
  description:
    "Derived from the thread's history alone: every commit and tree its steps recorded (a step that runs in a git working tree records the tree before and after it, uncommitted changes included) is a subject, and the predicate lists each step with its role, agent, model, usage, the hashes of the step and its prompt, the trees and the diff stat. Deriving it again, from this store or from an export bundle, gives the same bytes: check one with `uwf thread verify --receipt <file> [--bundle <file>]`. Without -o the statement is printed (with --format json: inside the document).",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  options: [
    {
      flags: "-o, --output <file>",
      type: "string",
      description:
        "write the statement there (relative to the current directory); a device or FIFO is written into, a directory or other special file refused",
    },
    { flags: "--force", type: "boolean", description: "replace an existing regular file" },
  ],
  examples: [
    "uwf thread receipt 01JD… -o receipt.json",
    "uwf thread receipt 01JD… | jq '.subject'",
  ],
  async run(ctx, [thread], options) {
    const { receiptStatement } = await import("@united-workforce/engine");
    const store = await ctx.store();
    const file = options.output === undefined ? null : resolve(ctx.cwd, options.output);
    // Checked before any work, like every `-o`.
    const write = file === null ? null : outputFile(file, { force: options.force === true });
    const pointer = await store.threads.get(thread!);
    const statement = await receiptStatement(store.cas, pointer);
    const text = `${JSON.stringify(statement, null, 2)}\n`;
    write?.(text);
    const steps = statement.predicate.steps;
    const doc: ThreadReceiptDocument = {
      thread: pointer.thread,
      head: statement.predicate.head,
      file,
      steps: steps.length,
      gitSteps: steps.filter((step) => step.git !== null).length,
      subjects: statement.subject.length,
      statement,
    };
    return result(doc, (d) =>
      d.file === null
        ? text.trimEnd()
        : `wrote ${d.file}: ${d.subjects} subject${d.subjects === 1 ? "" : "s"}, ${d.steps} step${d.steps === 1 ? "" : "s"} (${d.gitSteps} in a git working tree)`,
    );
  },
});
