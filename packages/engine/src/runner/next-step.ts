import { END, SUSPEND, type ThreadPointer } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import type { FanoutTransition } from "../moderator/evaluate.js";
import { chooseAgent } from "../steps/agent-step.js";
import type { RunContext } from "../steps/context.js";
import { isHumanRole } from "../steps/human-step.js";
import { type PlannedStep, prevOf } from "../steps/planned-step.js";

/**
 * The step to run next: the one the caller chose (resume, poke), checked against the route,
 * else the moderator's. `fanout`: the step is a fan-out's join. Null when the head leads to no
 * role (`$END`, `$SUSPEND`): the thread settles.
 */
export async function planNext(
  run: RunContext,
  pointer: ThreadPointer,
  first: PlannedStep | undefined,
): Promise<{ step: PlannedStep; fanout: FanoutTransition | null } | null> {
  if (first) {
    await refuseOffRoute(run, pointer, first);
    return { step: first, fanout: await fanoutInto(run, pointer, first.role) };
  }
  const next = await run.router.route(pointer);
  if (next.kind === "fanout") {
    return {
      step: {
        role: next.role,
        prompt: next.template,
        location: null,
        prev: prevOf(pointer),
        replaceHead: false,
      },
      fanout: next,
    };
  }
  if (next.kind !== "next") return null;
  const step = {
    role: next.role,
    prompt: next.prompt,
    location: next.location,
    prev: prevOf(pointer),
    replaceHead: false,
  };
  return { step, fanout: null };
}

/**
 * What a run would stop on before its first step, checked without running or writing anything:
 * the route from the head, and the agent the next role needs (config.yaml, `--agent`). A
 * background exec checks this before it detaches, so that what a foreground exec reports at
 * once (an unknown agent, none configured) is reported at once, with the same exit code.
 */
export async function checkFirstStep(
  run: RunContext,
  pointer: ThreadPointer,
  options: { agentFlag?: string | undefined; first?: PlannedStep },
): Promise<void> {
  let role = options.first?.role;
  if (role === undefined) {
    const next = await run.router.route(pointer);
    // Settling (`$END`, a question) needs no agent; a fan-out's children choose their own.
    if (next.kind !== "next") return;
    role = next.role;
  }
  // A human's, a command's and a join's steps run no agent.
  const payload = (await run.router.workflow(pointer.workflowHash)).roles[role];
  if (!payload || payload.join === true || isHumanRole(payload) || payload.run !== undefined) {
    return;
  }
  await chooseAgent(run, pointer, role, options.agentFlag);
}

/**
 * A chosen first step (resume, poke, a fan-out's retried child) must be one the moderator could
 * have routed to from the step it follows: a step off the route would make the thread's history
 * one `thread verify` rejects. Nothing runs and nothing is written when it is not.
 */
async function refuseOffRoute(
  run: RunContext,
  pointer: ThreadPointer,
  step: PlannedStep,
): Promise<void> {
  const problem = await run.router.routeProblem(pointer, step);
  if (problem === null) return;
  const after = step.prev === null ? "the thread's start" : `step ${step.prev}`;
  throw new UwfError(
    "THREAD_STATE",
    `thread ${pointer.thread} cannot run role "${step.role}" after ${after}: ${problem}; nothing was run or written`,
    {
      hint: `See where it stands with: uwf thread show ${pointer.thread}. To run the head's role again in its place: uwf thread poke ${pointer.thread} -p "<instructions>"`,
    },
  );
}

/**
 * The fan-out a chosen first step (resume) runs when its role is a join: the one the head
 * routes to. Null for any other role.
 */
async function fanoutInto(
  run: RunContext,
  pointer: ThreadPointer,
  role: string,
): Promise<FanoutTransition | null> {
  const workflow = await run.router.workflow(pointer.workflowHash);
  if (workflow.roles[role]?.join !== true) return null;
  const next = await run.router.route(pointer);
  if (next.kind !== "fanout" || next.role !== role) {
    throw new UwfError(
      "THREAD_STATE",
      `role "${role}" is a join, and thread ${pointer.thread}'s head does not fan out into it`,
      { hint: `See where the thread stands with: uwf thread show ${pointer.thread}` },
    );
  }
  return next;
}

/**
 * Whether every edge out of `role` leads to `$END` or `$SUSPEND`: its step ends the run,
 * whatever it answers (a status the graph does not route suspends the thread too).
 */
export async function endsTheRun(
  run: RunContext,
  pointer: ThreadPointer,
  role: string,
): Promise<boolean> {
  const { graph } = await run.router.workflow(pointer.workflowHash);
  return Object.values(graph[role] ?? {}).every(
    (edge) => edge.role === END || edge.role === SUSPEND,
  );
}
