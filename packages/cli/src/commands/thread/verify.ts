import {
  ExitCode,
  type ThreadVerifyDocument,
  type ThreadVerifyReport,
} from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["thread", "verify"],
  summary:
    "prove a thread's history: re-hash every node, check links, schemas and routes (exit 1 if any fails)",
  args: [{ name: "thread", type: "thread", description: "thread id", required: false }],
  options: [{ flags: "--all", type: "boolean", description: "verify every thread" }],
  examples: ["uwf thread verify 01JD…", "uwf thread verify --all --format json"],
  async run(ctx, [thread], options) {
    if ((thread === undefined) === !options.all) {
      throw new UwfError("USAGE", "name one thread, or pass --all (not both)", {
        hint: "uwf thread verify <thread>, or uwf thread verify --all",
      });
    }
    const { verifyAllThreads, verifyThread } = await import("@united-workforce/engine");
    const store = await ctx.store();
    const threads: ThreadVerifyReport[] = [];
    if (thread !== undefined) threads.push(await verifyThread(store, thread));
    else {
      // A whole-store pass anyway: the filesystem's list index is rebuilt on the way.
      await store.threads.reindex();
      for await (const report of verifyAllThreads(store)) threads.push(report);
    }
    const ok = threads.every((t) => t.ok);
    const exitCode = ok ? ExitCode.ok : ExitCode.error;
    const doc: ThreadVerifyDocument = { ok, threads };
    return result(doc, (d) => d.threads.map(renderOne).join("\n"), exitCode);
  },
});

function renderOne(doc: ThreadVerifyReport): string {
  const counted = `${doc.steps} step${doc.steps === 1 ? "" : "s"}, ${doc.nodes} nodes`;
  if (doc.ok) return `${doc.thread}: ok (${counted} re-hashed and checked)`;
  const [first] = doc.problems;
  const lines = [
    `${doc.thread}: FAILED (${counted} checked; ${doc.problems.length} problem${doc.problems.length === 1 ? "" : "s"})`,
  ];
  for (const problem of doc.problems) {
    const where = problem.step === null ? "" : `step ${problem.step} `;
    const marker = problem === first ? "first bad node" : "also";
    lines.push(`  ${marker}: ${where}${problem.hash} (${problem.kind}) ${problem.reason}`);
  }
  return lines.join("\n");
}
