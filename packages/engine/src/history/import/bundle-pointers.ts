import {
  END,
  isThreadId,
  START,
  type StartPayload,
  type StepPayload,
  type ThreadPointer,
  type ThreadVerifyReport,
  type WorkflowPayload,
} from "@united-workforce/protocol";
import { type Cas, pointerProblem } from "@united-workforce/store";
import { UwfError } from "@united-workforce/util";
import { notAtEnd } from "../verify-thread.js";

/**
 * The header's pointers, each one this store could read (every field as the pointer's schema
 * says: `pointerProblem`), and each thread once.
 */
export function checkPointers(values: readonly unknown[]): ThreadPointer[] {
  const seen = new Set<string>();
  return values.map((value, index) => {
    const id = (value as { thread?: unknown } | null)?.thread;
    if (!isThreadId(id)) {
      throw invalidPointer(
        `thread ${index + 1} of the bundle's header`,
        `its \`thread\` ${JSON.stringify(id)} is not a thread id`,
      );
    }
    const problem = pointerProblem(value, id);
    if (problem !== null) throw invalidPointer(`thread ${id} in the bundle`, problem);
    if (seen.has(id)) throw invalidPointer(`thread ${id} in the bundle`, "it is listed twice");
    seen.add(id);
    return value as ThreadPointer;
  });
}

/**
 * What the pointer says beyond its chain's hashes must agree with the chain (verified already):
 * the workflow's name, the role that ran last, a status that matches its suspension, a
 * suspension naming a role of the workflow. The pointer's fields each have the type its schema
 * says already (`checkPointers`).
 */
export async function checkAgainstChain(cas: Cas, pointer: ThreadPointer): Promise<void> {
  const fail = (problem: string) =>
    invalidPointer(`thread ${pointer.thread} in the bundle`, problem);
  const workflow = await cas.getPayload<WorkflowPayload>(pointer.workflowHash);
  if (pointer.workflow !== workflow.name) {
    throw fail(
      `its pointer names workflow ${JSON.stringify(pointer.workflow)}, but the workflow it is pinned to (${pointer.workflowHash}) is ${JSON.stringify(workflow.name)}`,
    );
  }
  const head =
    pointer.head === pointer.start ? null : await cas.getPayload<StepPayload>(pointer.head, "step");
  const lastRole = head?.role ?? null;
  if (pointer.currentRole !== lastRole) {
    throw fail(
      `its pointer says the last role was ${JSON.stringify(pointer.currentRole)}, but its head ${lastRole === null ? "is the StartNode" : `step ran ${JSON.stringify(lastRole)}`}`,
    );
  }
  const { status, suspended } = pointer;
  if (status === "suspended" && suspended === null) {
    throw fail("its pointer says `suspended` but not why (`suspended` is null)");
  }
  if ((status === "idle" || status === "completed") && suspended !== null) {
    throw fail(`its pointer says \`${status}\` but holds a suspension (role "${suspended.role}")`);
  }
  if (status === "idle") {
    // uwf settles a step that reaches $END in the same write that moves the head to it.
    const start = await cas.getPayload<StartPayload>(pointer.start, "start");
    const inputs = workflow.inputs === undefined ? undefined : (start.inputs ?? {});
    const from =
      head === null
        ? null
        : { role: head.role, output: await cas.getPayload<Record<string, unknown>>(head.output) };
    if (notAtEnd(workflow.graph, from, inputs) === null) {
      throw fail(
        `its pointer says \`idle\`, but ${from === null ? "$START.new" : `its head step's role "${from.role}" answered ${JSON.stringify(from.output.$status)}, which`} leads to ${END}: the thread ended, which uwf records as \`completed\``,
      );
    }
  }
  if (
    suspended !== null &&
    suspended.role !== START &&
    workflow.roles[suspended.role] === undefined
  ) {
    throw fail(
      `its suspension names role ${JSON.stringify(suspended.role)}, which is not in workflow "${workflow.name}"`,
    );
  }
}

function invalidPointer(what: string, problem: string): UwfError {
  return new UwfError("BUNDLE_INVALID", `${what}: ${problem}; nothing was imported`, {
    hint: "a bundle's header is written by `uwf thread export`, not by hand: export the thread again from its store",
  });
}

/** A bundled thread that does not verify: its first problem, all of them in the details. */
export function refusal(report: ThreadVerifyReport): UwfError {
  const first = report.problems[0]!;
  const where = first.step === null ? "" : ` (step ${first.step})`;
  return new UwfError(
    "BUNDLE_INVALID",
    `thread ${report.thread} in the bundle does not verify: node ${first.hash}${where}: ${first.reason}; nothing was imported`,
    {
      hint: "export the thread again from a store where `uwf thread verify` passes",
      details: { thread: report.thread, problems: report.problems },
    },
  );
}
