import { STATUS_FIELD, type StepPayload, type ThreadPointer } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import type { FanoutTransition } from "../../moderator/evaluate.js";
import type { RunContext } from "../context.js";
import { outputProblems, storeDirectStep } from "../direct-step.js";
import type { StepOutcome } from "../outcome.js";
import { type PlannedStep, prevOf } from "../planned-step.js";
import type { Child, FanoutReport } from "./child-standing.js";
import { count, firstLine } from "./wording.js";

/** The `agent` recorded on a join step: uwf wrote it from the children's results. */
export const JOIN_AGENT = "join";

/**
 * What a fan-out came to: the join step written (`joined`), or the parent waiting (its children
 * cannot all end yet, or the join was refused), as an outcome the runner applies to the parent;
 * or the run interrupted while children ran (`stopped`: nothing to apply).
 */
export type FanoutResult =
  | {
      kind: "outcome";
      outcome: StepOutcome;
      /** The step the outcome runs: the join role, with the fan-out edge's template. */
      plan: PlannedStep;
      /** Why the parent waits (its children, what to do), or the join's counts. */
      message: string;
      /** A child failed, or the join failed: the run's exit code is a failed step's. */
      failed: boolean;
      joined: { completed: number; failed: number } | null;
      report: FanoutReport;
    }
  | { kind: "stopped"; message: string; report: FanoutReport };

/** What writing the join reads: the store and the moderator's reader. */
type Run = Pick<RunContext, "store" | "router">;

/** Write the join step from the children's results, then route on from it. */
export async function join(
  run: Run,
  pointer: ThreadPointer,
  transition: FanoutTransition,
  children: Child[],
  summary: FanoutReport,
): Promise<FanoutResult> {
  const started = Date.now();
  const results = [];
  for (const c of children) {
    const output = c.outcome === "completed" ? await lastOutput(run, c.thread) : null;
    results.push({
      index: c.index,
      item: c.item,
      thread: c.thread,
      status: c.outcome === "completed" ? "completed" : "failed",
      output,
      ...(c.outcome === "completed" ? {} : { reason: c.reason ?? "failed" }),
    });
  }
  const completed = results.filter((r) => r.status === "completed").length;
  const output: Record<string, unknown> = {
    [STATUS_FIELD]: completed === results.length ? "done" : "partial",
    results,
    completed,
    failed: results.length - completed,
  };
  const workflow = await run.router.workflow(pointer.workflowHash);
  const role = workflow.roles[transition.role]!;
  const problems = await outputProblems(run.store.cas, role.frontmatter, output);
  if (problems.length > 0) {
    return joinFailure(
      pointer,
      transition,
      `the join output uwf wrote from the children's results does not match role "${transition.role}"'s frontmatter schema: ${problems.join("; ")}. The join output is { $status: done|partial, results: [{ index, item, thread, status, output, reason? }], completed, failed }; declare those fields (or fewer, without additionalProperties: false) in the join role's schema.`,
      summary,
    );
  }
  const plan = joinPlan(pointer, transition);
  const verified = await storeDirectStep(run.store.cas, pointer, plan, role.frontmatter, {
    agent: JOIN_AGENT,
    output,
    body: joinBody(transition.role, results),
    assembledPrompt: transition.template,
    cwd: pointer.cwd,
    detail: { adapter: JOIN_AGENT, children: children.map((c) => c.thread) },
    startedAtMs: started,
  });
  const failed = results.length - completed;
  return {
    kind: "outcome",
    outcome: { kind: "stored", verified, agent: JOIN_AGENT, startedAtMs: started },
    plan,
    message: `joined ${count(results.length, "child")}: ${completed} completed, ${failed} failed`,
    failed: false,
    joined: { completed, failed },
    report: summary,
  };
}

/** The join cannot be written yet (`reason`: why, and what to do): the parent waits for it. */
export function joinWaits(
  pointer: ThreadPointer,
  transition: FanoutTransition,
  reason: string,
  children: Child[],
  summary: FanoutReport,
): FanoutResult {
  return {
    kind: "outcome",
    outcome: {
      kind: "waits",
      suspend: {
        role: transition.role,
        reason,
        kind: "fanout",
        prompt: transition.template,
        location: null,
      },
    },
    plan: joinPlan(pointer, transition),
    message: reason,
    failed: children.some((c) => c.outcome === "failed"),
    joined: null,
    report: summary,
  };
}

/**
 * The fan-out cannot go on (the children cannot be made, or the join does not fit its role):
 * the parent's join step fails, and `thread resume` tries it again once it is fixed.
 */
export function joinFailure(
  pointer: ThreadPointer,
  transition: FanoutTransition,
  reason: string,
  summary: FanoutReport,
): FanoutResult {
  return {
    kind: "outcome",
    outcome: { kind: "failed", failure: new UwfError("AGENT_FAILED", reason) },
    plan: joinPlan(pointer, transition),
    message: reason,
    failed: true,
    joined: null,
    report: summary,
  };
}

/** The join step a fan-out writes, following the head, with the fan-out edge's template. */
function joinPlan(pointer: ThreadPointer, transition: FanoutTransition): PlannedStep {
  return {
    role: transition.role,
    prompt: transition.template,
    location: null,
    prev: prevOf(pointer),
    replaceHead: false,
  };
}

async function lastOutput(run: Run, thread: string): Promise<unknown> {
  const child = await run.store.threads.get(thread);
  if (child.head === child.start) return null;
  const head = await run.store.cas.getPayload<StepPayload>(child.head, "step");
  return run.store.cas.getPayload<unknown>(head.output);
}

function joinBody(
  role: string,
  results: { index: number; thread: string; status: string; output: unknown; reason?: string }[],
): string {
  const lines = [
    `Role "${role}" joined ${count(results.length, "child")}.`,
    "",
    "| # | thread | status | $status or reason |",
    "|---|--------|--------|-------------------|",
  ];
  for (const r of results) {
    const status =
      r.status === "completed"
        ? String((r.output as Record<string, unknown> | null)?.[STATUS_FIELD] ?? "")
        : firstLine(r.reason ?? "");
    lines.push(`| ${r.index} | ${r.thread} | ${r.status} | ${status.replaceAll("|", "\\|")} |`);
  }
  return `${lines.join("\n")}\n`;
}
