import { readdirSync } from "node:fs";
import { join } from "node:path";
import { type DocumentOf, isThreadId } from "@united-workforce/protocol";
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
    const { Cas, collectGcRoots } = await import("@united-workforce/store");
    const dryRun = options.yes !== true;
    const keepRecentMs = options.keepRecent;
    const running = await runningThreads(ctx.home);
    if (!dryRun && running.length > 0) {
      const [first] = running as [RunningThread];
      const which = running.map((r) => `${r.thread} (pid ${r.pid}, ${r.command})`).join(", ");
      throw new UwfError(
        "THREAD_BUSY",
        `gc refused: ${running.length === 1 ? "a thread is" : `${running.length} threads are`} running: ${which}; an exec in flight stores nodes no thread points to yet`,
        {
          hint: `nothing was deleted; wait with \`uwf thread join ${first.thread}\` (or stop it with \`uwf thread stop ${first.thread}\`), then run \`uwf cas gc --yes\` again`,
          details: { running },
        },
      );
    }
    const report = Cas.open(ctx.home).gc(() => collectGcRoots(ctx.home), { dryRun, keepRecentMs });
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

/** Threads whose lock file is held by a live process (a stale lock does not count). */
async function runningThreads(home: string): Promise<RunningThread[]> {
  const { readLock } = await import("@united-workforce/store");
  const dir = join(home, "locks");
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const running: RunningThread[] = [];
  for (const name of names.sort()) {
    const thread = name.endsWith(".lock") ? name.slice(0, -".lock".length) : "";
    if (!isThreadId(thread)) continue;
    const lock = readLock(join(dir, name));
    if (lock?.alive) {
      running.push({
        thread,
        pid: lock.info.holder.pid,
        command: lock.info.command,
        since: lock.info.acquiredAt,
      });
    }
  }
  return running;
}
