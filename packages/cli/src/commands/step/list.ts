import type { StepListDocument, StepListEntry } from "@united-workforce/protocol";
import { durationText } from "@united-workforce/util";
import { relativeTime, renderTable } from "../../output/table.js";
import { defineCommand, result } from "../command.js";
import { stepListEntry } from "./list-entry.js";

export default defineCommand({
  path: ["step", "list"],
  summary: "list a thread's steps, oldest first",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  async run(ctx, [thread]) {
    const { walkBack } = await import("@united-workforce/engine");
    const { cas, threads } = await ctx.store();
    const pointer = await threads.get(thread!);
    const steps: StepListEntry[] = [];
    for await (const { hash, step } of walkBack(
      cas,
      pointer.head === pointer.start ? null : pointer.head,
    )) {
      steps.push((await stepListEntry(cas, hash, step)).entry);
    }
    steps.reverse();
    const doc: StepListDocument = { thread: pointer.thread, workflow: pointer.workflow, steps };
    return result(doc, (d, view) =>
      d.steps.length === 0
        ? "no steps yet"
        : view.tty
          ? renderTable(
              [
                { header: "#", align: "right" },
                { header: "hash" },
                { header: "role" },
                { header: "status" },
                { header: "agent" },
                { header: "started" },
                { header: "took", align: "right" },
              ],
              d.steps.map((s, i) => [
                String(i + 1),
                s.hash,
                s.role,
                s.status,
                s.agent,
                relativeTime(s.startedAt, view.now),
                durationText(s.durationMs),
              ]),
            )
          : d.steps
              .map(
                (s, i) =>
                  `${String(i + 1).padStart(3)}  ${s.hash}  ${s.role} → ${s.status}  (${s.agent}, ${s.durationMs} ms)`,
              )
              .join("\n"),
    );
  },
});
