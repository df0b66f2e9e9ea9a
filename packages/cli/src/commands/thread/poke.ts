import { defineCommand } from "../command.js";
import { openRunner, progressView, QUIET_OPTION, runResult } from "./shared.js";

export default defineCommand({
  path: ["thread", "poke"],
  interruptible: true,
  summary: "re-run the head step's role with new instructions; the new step replaces the head",
  description:
    "The old head stays in the CAS, reachable with `uwf step fork` until `uwf cas gc` removes what no thread reaches (fork it first to keep it), and the thread moves on from the new one. If the agent fails, the thread is suspended and `uwf thread resume` retries the poke: its step still replaces the head.",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  options: [
    {
      flags: "-p, --prompt <text>",
      type: "string",
      required: true,
      description: "the new instructions",
      hint: 'Say what to do differently: -p "…"',
    },
    {
      flags: "--agent <alias|command>",
      type: "string",
      description: "agent for this step (default: the one the thread remembers, else config)",
    },
    QUIET_OPTION,
  ],
  examples: ['uwf thread poke 01JD… -p "Keep the public API unchanged."'],
  async run(ctx, [thread], options) {
    const progress = progressView(ctx, options.quiet);
    const runner = await openRunner(ctx, { progress, moves: true });
    try {
      const ran = await runner.poke(thread!, {
        prompt: options.prompt,
        agent: options.agent as string | undefined,
      });
      return runResult(ran, { quiet: options.quiet });
    } finally {
      progress.stop();
    }
  },
});
