import type { FanoutFailureRule, ThreadPointer } from "@united-workforce/protocol";
import { count, firstLine } from "./wording.js";

/** Where a child stands for its fan-out. */
export type ChildOutcome = "completed" | "failed" | "waiting" | "pending";

/** One child of a fan-out, as the exec document and the parent's suspension report it. */
export interface FanoutChildReport {
  index: number;
  thread: string;
  status: ChildOutcome;
  /** The child's role the reason is about, when it failed or waits. */
  role?: string;
  /** Why it failed or waits. */
  reason?: string;
}

/** What one fan-out did: its children as they stand now, and the join role. */
export interface FanoutReport {
  role: string;
  children: FanoutChildReport[];
  completed: number;
  failed: number;
  waiting: number;
}

/** One child of the fan-out being run: its item, its thread and where it stands. */
export interface Child extends ChildStanding {
  index: number;
  item: unknown;
  thread: string;
}

/** Where a child stands, and why when it failed or waits. */
export interface ChildStanding {
  outcome: ChildOutcome;
  /** Why a waiting child waits: its suspend kind. */
  kind?: string;
  role?: string;
  reason?: string;
}

/** A child's standing before this exec runs it: ended, or to run (`pending`). */
export function standing(child: ThreadPointer, retryFailed: boolean): ChildStanding {
  const info = child.suspended;
  switch (child.status) {
    case "completed":
      return { outcome: "completed" };
    case "cancelled":
      return { outcome: "failed", reason: "the child thread was cancelled" };
    case "idle":
      return { outcome: "pending" };
    default: {
      if (!info) return { outcome: "pending" };
      const failedKind = info.kind === "failure" || info.kind === "retry";
      if ((failedKind || info.kind === "budget") && retryFailed) return { outcome: "pending" };
      if (failedKind) return { outcome: "failed", role: info.role, reason: info.reason };
      // A nested fan-out goes on like the parent's own.
      if (info.kind === "fanout") return { outcome: "pending" };
      return {
        outcome: "waiting",
        kind: info.kind,
        role: info.role,
        reason: waitingWhy(info.kind, info.reason),
      };
    }
  }
}

function waitingWhy(kind: string, reason: string): string {
  if (kind === "human") return "waits for a human's answer";
  if (kind === "question") return `asks: ${reason}`;
  return `${kind}: ${reason}`;
}

/** Why the join cannot be written yet, or null when it can. */
export function blockingChildren(children: Child[], failure: FanoutFailureRule): string | null {
  const waiting = children.filter((c) => c.outcome === "waiting" || c.outcome === "pending");
  const failed = children.filter((c) => c.outcome === "failed");
  const completed = children.filter((c) => c.outcome === "completed");
  if (failure === "all" && failed.length > 0) {
    return `${count(failed.length, "child")} failed (failure: all needs every child to complete)`;
  }
  if (waiting.length > 0) return `${count(waiting.length, "child")} did not end yet`;
  if (failure === "any" && children.length > 0 && completed.length === 0) {
    return "no child completed (failure: any needs one to)";
  }
  return null;
}

/** The parent's suspension reason: why it cannot join, the children in the way, what to do. */
export function fanoutWaitReason(
  parent: string,
  role: string,
  children: Child[],
  why: string,
): string {
  const shown = children.filter((c) => c.outcome !== "completed");
  const lines = [`the fan-out to role "${role}" cannot join: ${why}.`];
  for (const c of shown.slice(0, 10)) {
    const what =
      c.outcome === "pending"
        ? "not run yet"
        : `${c.outcome}${c.role ? ` at role "${c.role}"` : ""}: ${firstLine(c.reason ?? "")}`;
    lines.push(`  child ${c.thread} (item ${c.index}) ${what}`);
  }
  if (shown.length > 10) lines.push(`  … and ${shown.length - 10} more`);
  const how: string[] = [];
  if (children.some((c) => c.outcome === "failed")) {
    how.push(`uwf thread resume ${parent} re-runs the failed children's failed steps and goes on`);
  }
  if (children.some((c) => c.kind === "budget")) {
    how.push(
      `uwf thread resume ${parent} runs the children this run's budget stopped, with a new budget`,
    );
  }
  if (children.some((c) => c.outcome === "waiting" && c.kind !== "budget")) {
    how.push(
      `answer or resume a waiting child on its own (uwf thread show <child> says how), then uwf thread exec ${parent}`,
    );
  }
  if (children.some((c) => c.outcome === "pending") && how.length === 0) {
    how.push(`uwf thread exec ${parent} runs them`);
  }
  lines.push(`To continue: ${how.join("; or ")}.`);
  return lines.join("\n");
}

/** The fan-out's report: its children as they stand, counted. */
export function fanoutReport(role: string, children: Child[]): FanoutReport {
  return {
    role,
    children: children.map((c) => ({
      index: c.index,
      thread: c.thread,
      status: c.outcome,
      ...(c.role === undefined ? {} : { role: c.role }),
      ...(c.reason === undefined ? {} : { reason: firstLine(c.reason) }),
    })),
    completed: children.filter((c) => c.outcome === "completed").length,
    failed: children.filter((c) => c.outcome === "failed").length,
    waiting: children.filter((c) => c.outcome === "waiting" || c.outcome === "pending").length,
  };
}
