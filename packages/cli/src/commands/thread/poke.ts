import { UwfError } from "@united-workforce/util";
import { defineCommand } from "../command.js";
import { execResult, openEngine, progressView, QUIET_OPTION } from "./shared.js";

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
    const { cancelledHint, runSteps, takeThread } = await import("@united-workforce/engine");
    const text = options.prompt;
    const progress = progressView(ctx, options.quiet);
    const engine = await openEngine(ctx, { progress });
    await engine.store.threads.get(thread!);
    const lease = await takeThread(engine.store, thread!, "uwf thread poke");
    try {
      const pointer = await engine.store.threads.get(thread!);
      if (pointer.status === "cancelled") {
        throw new UwfError(
          "THREAD_STATE",
          `thread ${pointer.thread} is cancelled; nothing runs on it`,
          { hint: cancelledHint(pointer) },
        );
      }
      const head = await engine.headStep(pointer);
      if (!head) {
        throw new UwfError("THREAD_STATE", `thread ${pointer.thread} has no step to poke yet`, {
          hint: `Run its first step with: uwf thread exec ${pointer.thread}`,
        });
      }
      const summary = await runSteps(engine, thread!, {
        count: 1,
        agentFlag: options.agent as string | undefined,
        lease,
        first: () => ({
          role: head.role,
          prompt: `${head.edgePrompt}\n\n## Additional instructions\n${text}`,
          location: head.cwd,
          prev: head.prev,
          replaceHead: true,
        }),
      });
      return await execResult(engine, summary, { quiet: options.quiet });
    } finally {
      progress.stop();
      await lease.release();
    }
  },
});
