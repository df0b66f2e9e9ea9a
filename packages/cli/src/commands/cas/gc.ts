import type { DocumentOf } from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { UwfError } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";

type GcDocument = DocumentOf<"cas gc">;
/** A thread whose exec holds its lock: it may have stored nodes no pointer reaches yet. */
type RunningThread = GcDocument["running"][number];

export default defineCommand({
  path: ["cas", "gc"],
  summary: "delete nodes no thread or registry entry reaches (dry run unless --yes)",
  description:
    "Refuses to delete while a thread exec is running: its new nodes are not reachable until it moves the thread's head. Nodes written within --keep-recent are kept too, since commands like `thread start` store nodes a moment before the pointer that reaches them.",
  options: [
    { flags: "-y, --yes", type: "boolean", description: "really delete" },
    {
      flags: "--keep-recent <age>",
      type: "duration",
      description: "keep unreachable nodes written within this age",
      default: "5m",
    },
  ],
  examples: ["uwf cas gc", "uwf cas gc --yes", "uwf cas gc --yes --keep-recent 0"],
  async run(ctx, _args, options) {
    const dryRun = options.yes !== true;
    const keepRecentMs = options.keepRecent;
    const store = await ctx.store();
    const running = await runningThreads(store);
    if (!dryRun && running.length > 0) {
      const [first] = running as [RunningThread];
      const which = running.map((r) => `${r.thread} (pid ${r.pid}, ${r.command})`).join(", ");
      throw new UwfError(
        "GC_REFUSED",
        `gc refused: ${running.length === 1 ? "a thread is" : `${running.length} threads are`} running: ${which}; an exec in flight stores nodes no thread points to yet`,
        {
          hint: `nothing was deleted; wait with \`uwf thread join ${first.thread}\` (or stop it with \`uwf thread stop ${first.thread}\`), then run \`uwf cas gc --yes\` again`,
          details: { running },
        },
      );
    }
    const report = await store.gc({ dryRun, keepRecentMs });
    const doc: GcDocument = { ...report, running };
    return result(doc, renderGc);
  },
});

function renderGc(d: GcDocument): string {
  const lines = d.dryRun
    ? [
        `${d.reachable} reachable, ${d.unreachable.length} unreachable (${d.bytes} bytes).`,
        ...d.unreachable.map((hash) => `  ${hash}`),
        d.unreachable.length > 0
          ? "Dry run: run `uwf cas gc --yes` to delete them."
          : "Dry run: nothing to delete.",
      ]
    : [
        `${d.reachable} reachable, deleted ${d.deleted} unreachable node${d.deleted === 1 ? "" : "s"} (${d.bytes} bytes).`,
        ...d.unreachable.map((hash) => `  ${hash}`),
      ];
  if (d.recent.length > 0) {
    lines.push(
      `kept ${d.recent.length} unreachable node${d.recent.length === 1 ? "" : "s"} written in the last --keep-recent period; \`--keep-recent 0\` collects them too.`,
    );
  }
  for (const r of d.running) {
    lines.push(
      `note: thread ${r.thread} is running (pid ${r.pid}); \`uwf cas gc --yes\` refuses until it stops.`,
    );
  }
  return lines.join("\n");
}

/** Threads a live exec holds (a stale lease does not count). */
async function runningThreads(store: Store): Promise<RunningThread[]> {
  const running: RunningThread[] = [];
  for (const thread of [...(await store.leases.live())].sort()) {
    const lease = await store.leases.read(thread);
    if (!lease?.alive) continue;
    running.push({
      thread,
      pid: lease.info.holder.pid,
      command: lease.info.command,
      since: lease.info.acquiredAt,
    });
  }
  return running;
}
