import type { ThreadSteerDocument } from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";
import { openRunner } from "./shared.js";
import { readTask } from "./task-input.js";

export default defineCommand({
  path: ["thread", "steer"],
  summary:
    "give the thread guidance: its running agent gets it at once if it can, else its next step",
  description:
    "The note waits on the thread (thread show lists it) until a step is stored: that step's prompt ends with it under `## Guidance from a human`, so it is in the history like any prompt, and the steps after do not get it again. When the thread runs, an agent that accepts input while it works (uwf-builtin before its next model request, uwf-claude-code through its stream-json input) gets the note at once, and an ACP agent when its turn ends, in a follow-up prompt: its step records it (thread read shows it where it arrived) and takes it off the thread. Other agents (Codex, uwf-mock), commands and people leave it for the next step, as does a note that comes after the agent's last turn. A completed or cancelled thread takes no note.",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  options: [
    {
      flags: "-p, --prompt <text>",
      type: "string",
      description: 'the guidance ("-": read it from stdin)',
    },
    {
      flags: "--prompt-file <path>",
      type: "string",
      description: "read the guidance from a file instead of -p",
    },
  ],
  examples: [
    'uwf thread steer 01JD… -p "Keep the public API unchanged."',
    "uwf thread steer 01JD… --prompt-file review-notes.md",
  ],
  async run(ctx, [thread], options) {
    const text = readTask(ctx.cwd, { prompt: options.prompt, promptFile: options.promptFile });
    const { steerThread, deriveStatus, liveHolder } = await import("@united-workforce/engine");
    const runner = await openRunner(ctx);
    const { pointer } = await steerThread(runner.store, thread!, text);
    const guidance = pointer.guidance ?? [];
    ctx.events.emit("thread.steered", { thread: pointer.thread, pending: guidance.length });
    const holder = await liveHolder(runner.store, pointer.thread);
    const doc: ThreadSteerDocument = {
      thread: pointer.thread,
      status: deriveStatus(pointer, holder),
      guidance,
    };
    const waiting = `${doc.guidance.length} note${doc.guidance.length === 1 ? "" : "s"}`;
    return result(doc, (d) =>
      d.status === "running"
        ? [
            `guidance left on ${d.thread} (running): its agent gets it at once if it accepts input while it works, else its next step does (${waiting} waiting)`,
            `follow it with: uwf thread watch ${d.thread}`,
          ].join("\n")
        : [
            `guidance left on ${d.thread} (${d.status}): ${waiting} wait for its next step`,
            `run it with: uwf thread exec ${d.thread}`,
          ].join("\n"),
    );
  },
});
