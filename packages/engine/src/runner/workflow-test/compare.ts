import type { ThreadPointer, WorkflowTestThread } from "@united-workforce/protocol";
import type { RecordedStep } from "../../history/recordings.js";

/** A recorded thread and its replay, as `compare` reads them. */
export interface Comparison {
  thread: string;
  origin: string;
  recorded: RecordedStep[];
  recordedStatus: string;
  replayThread: string;
  replayed: RecordedStep[];
  replayPointer: ThreadPointer;
  message: string;
  lastReport: Record<string, unknown> | null;
}

/** Same route, a different one (the first step that differs, and why), a miss, or a stop. */
export function compare(c: Comparison): WorkflowTestThread {
  const base = {
    thread: c.thread,
    origin: c.origin,
    replayThread: c.replayThread,
    recorded: route(c.recorded),
    replayed: route(c.replayed),
  };
  const shared = Math.min(c.recorded.length, c.replayed.length);
  for (let i = 0; i < shared; i++) {
    const was = c.recorded[i]!;
    const now = c.replayed[i]!;
    if (was.role === now.role && was.status === now.status) continue;
    const reason =
      was.role !== now.role
        ? `${after(c.recorded, i)} the workflow now routes to \`${now.role}\` (recorded: \`${was.role}\`)`
        : `\`${now.role}\` now answers \`${now.status}\` (recorded: \`${was.status}\`)`;
    return { ...base, result: "different", step: i + 1, reason, miss: null };
  }
  const missed = c.lastReport?.kind === "miss" ? c.lastReport : null;
  const at = c.replayed.length + 1;
  if (c.replayed.length < c.recorded.length) {
    const was = c.recorded[c.replayed.length]!;
    if (missed && missed.role !== was.role) {
      const reason = `${after(c.recorded, c.replayed.length)} the workflow now routes to \`${String(missed.role)}\` (recorded: \`${was.role}\`)`;
      return { ...base, result: "different", step: at, reason, miss: null };
    }
    if (missed) {
      const reason = `no recorded step of \`${was.role}\` has the prompt it gets now`;
      return { ...base, result: "miss", step: at, reason, miss: missOf(missed) };
    }
    if (c.replayPointer.status === "completed") {
      const reason = `${after(c.recorded, c.replayed.length)} the workflow now ends (recorded: \`${was.role}\` next)`;
      return { ...base, result: "different", step: at, reason, miss: null };
    }
    const reason = `the replay stopped before \`${was.role}\`: ${c.message}`;
    return { ...base, result: "stopped", step: at, reason, miss: null };
  }
  const wentOn = c.replayed.length > c.recorded.length;
  if (wentOn || (c.recordedStatus === "completed" && c.replayPointer.status !== "completed")) {
    const next = wentOn
      ? c.replayed[c.recorded.length]!.role
      : missed
        ? String(missed.role)
        : (c.replayPointer.currentRole ?? "another role");
    const reason = `${after(c.recorded, c.recorded.length)} the recorded thread completed; the workflow now goes on to \`${next}\``;
    return { ...base, result: "different", step: c.recorded.length + 1, reason, miss: null };
  }
  return { ...base, result: "same", step: null, reason: "", miss: null };
}

/** A thread's route: its roles and statuses, step by step. */
export function route(steps: RecordedStep[]): WorkflowTestThread["recorded"] {
  return steps.map((s) => ({ role: s.role, status: s.status }));
}

/** "after `reviewer` → `rejected`," (the step before index `i`), or "from the start,". */
function after(steps: RecordedStep[], i: number): string {
  if (i === 0) return "from the start,";
  const prev = steps[i - 1]!;
  return `after \`${prev.role}\` → \`${prev.status}\`,`;
}

type Miss = NonNullable<WorkflowTestThread["miss"]>;

/** The miss uwf-replay reported (its UWF_REPLAY_REPORT line). */
function missOf(report: Record<string, unknown>): Miss {
  const nearest = (report.nearest ?? null) as Miss["nearest"];
  return { role: String(report.role), prompt: String(report.prompt), nearest };
}
