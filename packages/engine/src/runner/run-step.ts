import type { ThreadPointer } from "@united-workforce/protocol";
import type { Lease } from "@united-workforce/store";
import { UwfError } from "@united-workforce/util";
import { StepReceipt } from "../receipts/record.js";
import { type Applied, applyOutcome } from "../state/apply-outcome.js";
import { runAgentStep } from "../steps/agent-step.js";
import { type RunContext, stepCwd } from "../steps/context.js";
import { humanSuspension, isHumanRole } from "../steps/human-step.js";
import type { PlannedStep } from "../steps/planned-step.js";
import { runScriptStep } from "../steps/script-step.js";
import { withGuidance } from "../threads/steer.js";

/**
 * Run one planned step of the kind its role is (an agent's, a command's, or a human's, who is
 * asked), and apply what it came to. Any failure leaves the head where it was and suspends the
 * thread with the reason. A fan-out's join is not a step this runs: the run loop runs fan-outs.
 */
export async function runStep(
  run: RunContext,
  from: ThreadPointer,
  planned: PlannedStep,
  options: { agentFlag?: string | undefined; lease: Lease },
): Promise<Applied> {
  // The agent is given the pending guidance; a rerun after a failure is planned without it,
  // since the notes stay pending until a step is stored.
  const steered = withGuidance(planned, from);
  const plan = { ...planned, guidance: steered.guidance };
  const workflow = await run.router.workflow(from.workflowHash);
  const role = workflow.roles[plan.role];
  if (!role) {
    throw new UwfError(
      "WORKFLOW_INVALID",
      `workflow "${workflow.name}" has no role "${plan.role}"`,
    );
  }
  if (role.join === true) {
    throw new UwfError(
      "THREAD_STATE",
      `role "${plan.role}" is a join: uwf writes its step when the fan-out's children have ended`,
      { hint: `Run the fan-out with: uwf thread exec ${from.thread}` },
    );
  }
  if (isHumanRole(role)) {
    if (plan.replaceHead) {
      throw new UwfError(
        "THREAD_STATE",
        `role "${plan.role}" is answered by a human: poke re-runs agents and commands`,
        {
          hint: `To answer it differently, fork the step before it (uwf step fork <step>) and answer on the new thread.`,
        },
      );
    }
    // Nothing runs: the thread waits for `uwf thread answer`.
    const suspend = await humanSuspension(run, from, plan.role, steered.prompt, plan.location);
    return applyOutcome(run, from, plan, { kind: "waits", suspend });
  }
  // The working tree before the step, so its step says what it changed (docs/receipts.md).
  const cwd = stepCwd(from, plan.location);
  const receipt = await StepReceipt.begin(run, { thread: from.thread, role: plan.role, cwd });
  const outcome =
    role.run !== undefined
      ? await runScriptStep(run, from, steered, role, options)
      : await runAgentStep(run, from, steered, role, options);
  return applyOutcome(run, from, plan, await receipt.finish(outcome));
}
