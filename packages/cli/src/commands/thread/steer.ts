import type { ThreadSteerDocument } from "@united-workforce/protocol";
import { defineCommand, result } from "../command.js";
import { openRunner } from "./shared.js";
import { readTask } from "./task-input.js";

export default defineCommand({
  path: ["thread", "steer"],
  summary: "leave a guidance note the thread's next step takes in its prompt",
  description:
    "The note waits on the thread (thread show lists it) until a step is stored: that step's prompt ends with it under `## Guidance from a human`, so it is in the history like any prompt, and the steps after do not get it again. Steering a running thread is safe: its exec keeps the note for the step after the one running. A completed or cancelled thread takes no note.",
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
    return result(doc, (d) =>
      [
        `guidance left on ${d.thread} (${d.status}): ${d.guidance.length} note${d.guidance.length === 1 ? "" : "s"} wait for its next step`,
        `run it with: uwf thread exec ${d.thread}`,
      ].join("\n"),
    );
  },
});
