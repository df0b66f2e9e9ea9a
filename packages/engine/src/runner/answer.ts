import type { ThreadPointer } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import { commitStep } from "../state/apply-outcome.js";
import type { RunContext } from "../steps/context.js";
import { stepCwd } from "../steps/context.js";
import { outputProblems, storeDirectStep } from "../steps/direct-step.js";
import {
  answerOutput,
  describeState,
  type HumanAnswer,
  invalidAnswer,
  isHumanRole,
  roleExits,
  stateHint,
} from "../steps/human-step.js";
import { prevOf } from "../steps/planned-step.js";
import { takeThread } from "../threads/lease.js";
import { HUMAN_AGENT } from "../workflow/step-roles.js";
import type { AnswerDocument } from "./types.js";

/**
 * Answer a thread that waits for a human: type and validate the answer against the role's
 * schema (nothing is written when it fails), store it as the role's step, recorded as answered
 * by a human, move the head and route on. Takes the thread's lease for the write.
 */
export async function answerThread(
  run: RunContext,
  thread: string,
  answer: HumanAnswer,
): Promise<AnswerDocument> {
  await run.store.threads.get(thread);
  const lease = await takeThread(run.store, thread, "uwf thread answer", run.events);
  try {
    const pointer = await run.store.threads.get(thread);
    const info = pointer.suspended;
    if (pointer.status !== "suspended" || info?.kind !== "human") {
      throw new UwfError(
        "THREAD_STATE",
        `thread ${thread} is not waiting for a human answer (it is ${describeState(pointer)})`,
        { hint: stateHint(pointer) },
      );
    }
    const workflow = await run.router.workflow(pointer.workflowHash);
    const role = workflow.roles[info.role];
    if (!isHumanRole(role)) {
      throw new UwfError(
        "THREAD_STATE",
        `thread ${thread} waits on role "${info.role}", which its workflow does not answer by a human`,
      );
    }
    const exits = await roleExits(run, pointer, info.role);
    const output = answerOutput(info.role, exits, answer);
    const problems = await outputProblems(run.store.cas, role!.frontmatter, output);
    if (problems.length > 0) throw invalidAnswer(info.role, problems);

    const startedAtMs = Date.now();
    const plan = {
      role: info.role,
      prompt: info.prompt ?? info.reason,
      location: info.location ?? null,
      prev: prevOf(pointer),
      replaceHead: false,
    };
    const verified = await storeDirectStep(run.store.cas, pointer, plan, role!.frontmatter, {
      agent: HUMAN_AGENT,
      output,
      body: answer.body ?? "",
      assembledPrompt: info.reason,
      cwd: info.location ? stepCwd(pointer, info.location) : pointer.cwd,
      detail: { answeredBy: answer.by, rawOutput: JSON.stringify(output) },
      startedAtMs,
    });
    const done = await commitStep(run, pointer, plan, verified, HUMAN_AGENT, startedAtMs);
    return {
      thread,
      status: done.pointer.status,
      step: done.step,
      // A completed thread says its `$END` edge's message, as `thread exec` does.
      message:
        (done.pointer.status === "completed" ? await run.router.endMessage(done.pointer) : null) ??
        nextMessage(done.pointer),
    };
  } finally {
    await lease.release();
  }
}

function nextMessage(pointer: ThreadPointer): string {
  switch (pointer.status) {
    case "completed":
      return "the thread is completed";
    case "suspended":
      return pointer.suspended?.kind === "human"
        ? `the thread waits for a human again:\n${pointer.suspended.reason}`
        : `the thread is suspended: ${pointer.suspended?.reason ?? ""}`;
    default:
      return `run its next step with: uwf thread exec ${pointer.thread}`;
  }
}
