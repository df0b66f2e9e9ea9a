import type { Engine, LiftedGuard, PlannedStep } from "@united-workforce/engine";
import { START, type SuspendInfo, type ThreadPointer } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import { defineCommand } from "../command.js";
import { LIMIT_OPTIONS, limitFlags, runLimits } from "./limits.js";
import { execResult, openEngine, progressView, QUIET_OPTION } from "./shared.js";

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
    const { runSteps, takeThread } = await import("@united-workforce/engine");
    const count = options.count;
    const answer =
      typeof options.prompt === "string" && options.prompt.trim() !== "" ? options.prompt : null;
    const flags = limitFlags(options);
    const progress = progressView(ctx, options.quiet);
    const engine = await openEngine(ctx, { progress });
    await engine.store.threads.get(thread!);
    const lease = await takeThread(engine.store, thread!, "uwf thread resume");
    try {
      const pointer = await engine.store.threads.get(thread!);
      const first = await planResume(engine, pointer, answer);
      const summary = await runSteps(engine, thread!, {
        count,
        agentFlag: options.agent as string | undefined,
        lease,
        first: () => first,
        // A resumed run counts afresh: the human who resumes has seen what the last one spent.
        limits: () => runLimits(ctx, pointer.workflow, flags),
        ...liftedGuard(pointer),
      });
      return await execResult(engine, summary, { quiet: options.quiet });
    } finally {
      progress.stop();
      await lease.release();
    }
  },
});

/** Resuming a thread a workflow guard stopped goes past that guard for this run. */
function liftedGuard(pointer: ThreadPointer): { liftedGuard?: LiftedGuard } {
  const info = pointer.suspended;
  if (pointer.status !== "suspended" || info?.kind !== "guard" || info.guard === undefined)
    return {};
  return { liftedGuard: { guard: info.guard, role: info.role } };
}

async function planResume(
  engine: Engine,
  pointer: ThreadPointer,
  answer: string | null,
): Promise<PlannedStep> {
  const { cancelledHint, prevOf, rerunStep } = await import("@united-workforce/engine");
  const id = pointer.thread;
  switch (pointer.status) {
    case "cancelled":
      throw new UwfError("THREAD_STATE", `thread ${id} is cancelled and cannot be resumed`, {
        hint: cancelledHint(pointer),
      });
    case "idle":
      throw new UwfError(
        "THREAD_STATE",
        `thread ${id} is not suspended or completed; nothing to resume`,
        {
          hint: `Run its next step with: uwf thread exec ${id}`,
        },
      );
    case "completed": {
      const next = await engine.route(pointer, "resume");
      if (next.kind !== "next") {
        throw new UwfError(
          "THREAD_STATE",
          `thread ${id} cannot restart: $START.resume of its workflow does not lead to a role`,
          {
            hint: `Continue from one of its steps instead: uwf step list ${id}, then uwf step fork <step>.`,
          },
        );
      }
      return {
        role: next.role,
        prompt: withNote(next.prompt, answer, "Note from a human"),
        location: next.location,
        prev: prevOf(pointer),
        replaceHead: false,
      };
    }
    default: {
      const info = pointer.suspended;
      if (!info || info.role === START) {
        const next = await engine.route(pointer);
        if (next.kind !== "next")
          throw new UwfError("THREAD_STATE", `thread ${id} has no role to resume`, {
            hint: `See where it stopped with: uwf thread show ${id}`,
          });
        return {
          role: next.role,
          prompt: withNote(next.prompt, answer, "Answer from a human"),
          location: next.location,
          prev: prevOf(pointer),
          replaceHead: false,
        };
      }
      if (info.kind === "human") {
        throw new UwfError(
          "THREAD_STATE",
          `thread ${id} waits for a human to answer role "${info.role}"; resume only re-runs agents`,
          {
            hint: `Answer it with: uwf thread answer ${id} --status <status> [--set field=value]… (\`uwf thread show ${id}\` lists what the role accepts)`,
          },
        );
      }
      if (info.kind === "question" && answer === null) {
        throw new UwfError("USAGE", `thread ${id} is waiting for an answer: ${info.reason}`, {
          hint: `Answer with: uwf thread resume ${id} -p "<your answer>"`,
        });
      }
      if (info.kind === "question") return planAnswer(engine, pointer, info, answer);
      // The step that failed or was stopped runs again; a failed poke's replaces the head.
      const prompt = withNote(info.prompt ?? info.reason, answer, "Note from a human");
      return rerunStep(engine, pointer, info, prompt);
    }
  }
}

/**
 * The role that asked runs again where it ran, with the instruction it was given, its question
 * and the answer: its history starts at its own last step, so without them it would lose the
 * task it was in the middle of (e.g. a developer asking about a branch would lose the plan).
 */
async function planAnswer(
  engine: Engine,
  pointer: ThreadPointer,
  info: SuspendInfo,
  answer: string | null,
): Promise<PlannedStep> {
  const { prevOf } = await import("@united-workforce/engine");
  const head = await engine.headStep(pointer);
  const asked = head?.role === info.role ? head : null;
  const question = `The thread was suspended with this question:\n${info.reason}`;
  const prompt = asked ? `${asked.edgePrompt.trimEnd()}\n\n## Question\n${question}` : question;
  return {
    role: info.role,
    prompt: withNote(prompt, answer, "Answer from a human"),
    location: info.location ?? asked?.cwd ?? null,
    prev: prevOf(pointer),
    replaceHead: false,
  };
}

function withNote(prompt: string, note: string | null, heading: string): string {
  return note === null ? prompt : `${prompt}\n\n## ${heading}\n${note}`;
}
