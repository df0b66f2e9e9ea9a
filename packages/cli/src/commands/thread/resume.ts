import { defineCommand } from "../command.js";
import { LIMIT_OPTIONS, limitFlags } from "./limits.js";
import { openRunner, progressView, QUIET_OPTION, runResult } from "./shared.js";

export default defineCommand({
  path: ["thread", "resume"],
  interruptible: true,
  summary: "answer a suspended thread (or restart a completed one) and run its next step",
  description:
    "A thread suspended by a question re-runs the role that asked, with the question and your answer. One suspended by a failed agent retries the failed step (a failed poke's step replaces the head, as the poke would have); one suspended by a budget runs the step it stopped before, and the resumed run has a budget of its own (config.yaml's limits, or --max-cost / --max-steps). One suspended by a workflow guard (maxSteps, a role's maxVisits) runs the step it stopped before, and that guard is not checked again for the rest of this run (later runs check it). One suspended after transient agent failures retries the step now. One waiting on its fan-out (kind fanout) re-runs its failed children's failed steps, runs the children not run yet, and joins once every child has ended. A completed thread restarts through $START.resume.",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  options: [
    {
      flags: "-p, --prompt <text>",
      type: "string",
      description: "your answer or extra instructions",
    },
    {
      flags: "-c, --count <n>",
      type: "integer",
      min: 1,
      description: "run up to n steps in all",
      default: "1",
      hint: "Say how many steps to run at most, e.g. --count 5.",
    },
    {
      flags: "--agent <alias|command>",
      type: "string",
      description: "agent for these steps (default: the one the thread remembers, else config)",
    },
    QUIET_OPTION,
    ...LIMIT_OPTIONS,
  ],
  examples: [
    'uwf thread resume 01JD… -p "Use the staging database."',
    "uwf thread resume 01JD… -c 20 --max-cost 2",
  ],
  async run(ctx, [thread], options) {
    const limits = limitFlags(options);
    const progress = progressView(ctx, options.quiet);
    const runner = await openRunner(ctx, { progress, moves: true });
    try {
      const ran = await runner.resume(thread!, {
        count: options.count,
        agent: options.agent as string | undefined,
        limits,
        answer: typeof options.prompt === "string" ? options.prompt : null,
      });
      return runResult(ran, { quiet: options.quiet });
    } finally {
      progress.stop();
    }
  },
});
