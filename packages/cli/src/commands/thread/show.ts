import { existsSync } from "node:fs";
import type { PendingStep, Runner } from "@united-workforce/engine";
import {
  emptyUsage,
  type StartPayload,
  type ThreadPointer,
  type ThreadShowDocument,
} from "@united-workforce/protocol";
import { costFact, errorMessage, sanitizeTerminalText, tokensFact } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";
import { openRunner } from "./shared.js";

export default defineCommand({
  path: ["thread", "show"],
  summary: "show a thread's status, head, next role and usage",
  description:
    "The next role is the one `uwf thread exec` runs on an idle thread; on a suspended thread, the one `uwf thread resume` (or `uwf thread answer`) runs, marked when its step replaces the head (a failed poke's retry).",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  async run(ctx, [thread]) {
    const { deriveStatus, liveHolder } = await import("@united-workforce/engine");
    const runner = await openRunner(ctx);
    const { store } = runner;
    const pointer = await store.threads.get(thread!);
    const holder = await liveHolder(store, thread!);
    // The nodes routing reads (start, workflow, head and what it points to) in one round trip.
    await store.cas.prefetch([pointer.start, pointer.workflowHash, pointer.head], [pointer.head]);
    const start = await store.cas.getPayload<StartPayload>(pointer.start, "start");
    // The role exec runs next, or, on a suspended thread, the one resume (or answer) runs.
    let next: PendingStep | null = null;
    try {
      next = await runner.next(pointer);
    } catch (error) {
      ctx.progress(`warning: cannot route this thread: ${errorMessage(error)}`);
    }
    const doc: ThreadShowDocument = {
      thread: pointer.thread,
      title: pointer.title ?? null,
      workflow: pointer.workflow,
      workflowHash: pointer.workflowHash,
      head: pointer.head,
      status: deriveStatus(pointer, holder),
      currentRole: pointer.currentRole,
      nextRole: next?.role ?? null,
      suspended: pointer.suspended
        ? {
            role: pointer.suspended.role,
            reason: pointer.suspended.reason,
            kind: pointer.suspended.kind,
            ...(pointer.suspended.retryAfter === undefined
              ? {}
              : { retryAfter: pointer.suspended.retryAfter }),
            ...(pointer.suspended.guard === undefined ? {} : { guard: pointer.suspended.guard }),
            ...(next?.replaceHead ? { replaceHead: true } : {}),
          }
        : null,
      steps: pointer.steps,
      usage: pointer.usage ?? emptyUsage(),
      unknownCostSteps: pointer.unknownCostSteps ?? 0,
      cwd: pointer.cwd,
      agent: pointer.agent ?? null,
      createdAt: pointer.createdAt,
      updatedAt: pointer.updatedAt,
      lockHolder: holder && { pid: holder.pid, since: holder.since },
      inputs: start.inputs ?? null,
      worktree: pointer.worktree
        ? { ...pointer.worktree, present: existsSync(pointer.worktree.path) }
        : null,
    };
    if (pointer.parent !== undefined) doc.parent = pointer.parent;
    if (pointer.rebasedFrom !== undefined) {
      doc.rebasedFrom = { thread: pointer.rebasedFrom.thread, step: pointer.rebasedFrom.step };
    }
    if (pointer.guidance !== undefined && pointer.guidance.length > 0) {
      doc.guidance = pointer.guidance;
    }
    if (pointer.race !== undefined) doc.race = pointer.race;
    if (pointer.promotedFrom !== undefined) doc.promotedFrom = pointer.promotedFrom;
    if (pointer.races !== undefined) doc.races = await racesShown(runner, pointer);
    // A fan-out not joined yet (to run, running, or waiting on children): where each child is.
    const pending = pointer.status === "idle" || pointer.status === "suspended";
    const fanout = pending ? await runner.fanout(pointer) : null;
    if (fanout !== null) {
      doc.children = [];
      for (const child of fanout.children) {
        const status = child.pointer === null ? "pending" : await runner.status(child.pointer);
        doc.children.push({
          thread: child.thread,
          index: child.index,
          status,
          ...(child.pointer?.title !== undefined && { title: child.pointer.title }),
        });
      }
    }
    return result(doc, renderShow);
  },
});

/** The thread's races (`thread race`), each with its forks and how each stands. */
async function racesShown(
  runner: Runner,
  pointer: ThreadPointer,
): Promise<NonNullable<ThreadShowDocument["races"]>> {
  const { racesOf } = await import("@united-workforce/engine");
  const races = await racesOf(runner.store, pointer);
  const shown: NonNullable<ThreadShowDocument["races"]> = [];
  for (const { raced, forks } of races) {
    const entries = [];
    for (const fork of forks) {
      entries.push({
        thread: fork.thread,
        agent: fork.race?.agent ?? "",
        status: await runner.status(fork),
        outcome: fork.race?.outcome ?? raceOutcome(fork, raced.at),
      });
    }
    shown.push({ race: raced.id, at: raced.at, forks: entries });
  }
  return shown;
}

/** Where a fork stands before a promotion: its step stored, failed, or not run yet. */
function raceOutcome(fork: ThreadPointer, at: string): string {
  if (fork.head !== at) return "finished";
  return fork.status === "suspended" ? "failed" : "pending";
}

/** The text lists this many children; the document lists every one. */
const SHOWN_CHILDREN = 20;

function renderShow(d: ThreadShowDocument): string {
  const lines = [
    `thread    ${d.thread}`,
    ...(d.title === null ? [] : [`title     ${sanitizeTerminalText(d.title)}`]),
    `workflow  ${d.workflow} (${d.workflowHash})`,
    `status    ${d.status}${d.lockHolder ? ` (pid ${d.lockHolder.pid} since ${d.lockHolder.since})` : ""}`,
    `steps     ${d.steps}, head ${d.head}`,
    `role      last: ${d.currentRole ?? "—"}, next: ${d.nextRole ?? "—"}${d.suspended?.replaceHead ? " (replacing the head, as the failed poke would have)" : ""}`,
    `cwd       ${d.cwd}`,
    ...(d.worktree
      ? [
          `worktree  ${d.worktree.path}${d.worktree.present ? "" : " (removed)"}, branch ${d.worktree.branch}`,
        ]
      : []),
    `agent     ${d.agent === null ? "from config.yaml (no --agent given yet)" : `${d.agent} (from --agent)`}`,
    `created   ${d.createdAt}, updated ${d.updatedAt}`,
  ];
  if (d.parent !== undefined) {
    lines.push(`parent    ${d.parent.thread} (item ${d.parent.index} of its fan-out)`);
  }
  if (d.rebasedFrom !== undefined) {
    lines.push(`rebased   from ${d.rebasedFrom.thread}, parting after ${d.rebasedFrom.step}`);
  }
  if (d.race !== undefined) {
    const outcome = d.race.outcome === undefined ? "" : `, ${d.race.outcome}`;
    lines.push(`race      fork of ${d.race.of} at ${d.race.at} (${d.race.agent}${outcome})`);
  }
  for (const race of d.races ?? []) {
    lines.push(`race      ${race.race} at ${race.at}: ${race.forks.length} forks`);
    for (const fork of race.forks) {
      lines.push(`          ${fork.thread} ${fork.outcome} (${sanitizeTerminalText(fork.agent)})`);
    }
  }
  if (d.promotedFrom !== undefined) {
    lines.push(
      `promoted  from ${d.promotedFrom.fork} (race ${d.promotedFrom.race}; head was ${d.promotedFrom.head})`,
    );
  }
  for (const note of d.guidance ?? []) {
    lines.push(`guidance  ${sanitizeTerminalText(note.text.trim())} (pending since ${note.at})`);
  }
  if (d.children !== undefined) {
    const counts = new Map<string, number>();
    for (const child of d.children) counts.set(child.status, (counts.get(child.status) ?? 0) + 1);
    const summary = [...counts].map(([status, n]) => `${n} ${status}`).join(", ");
    lines.push(`children  ${d.children.length} (${summary || "none"})`);
    for (const child of d.children.slice(0, SHOWN_CHILDREN)) {
      const title = child.title === undefined ? "" : `  ${sanitizeTerminalText(child.title)}`;
      lines.push(
        `          ${String(child.index).padStart(3)} ${child.thread} ${child.status}${title}`,
      );
    }
    if (d.children.length > SHOWN_CHILDREN) {
      lines.push(
        `          … and ${d.children.length - SHOWN_CHILDREN} more (--format json lists all)`,
      );
    }
  }
  if (d.inputs !== null) {
    const entries = Object.entries(d.inputs);
    if (entries.length === 0) lines.push("inputs    none given");
    entries.forEach(([name, value], i) => {
      const label = i === 0 ? "inputs    " : "          ";
      lines.push(`${label}${name} = ${sanitizeTerminalText(JSON.stringify(value))}`);
    });
  }
  if (d.steps > 0) {
    const cost = { costUsd: d.usage.costUsd, unknownCostSteps: d.unknownCostSteps, steps: d.steps };
    lines.push(`usage     ${tokensFact(d.usage)}, ${costFact(cost)}`);
  }
  if (d.suspended?.kind === "human") {
    // The reason is the question and the `uwf thread answer` lines.
    lines.push(`waiting   for a human to answer role ${d.suspended.role}:`);
    for (const line of d.suspended.reason.split("\n")) lines.push(`          ${line}`.trimEnd());
  } else if (d.suspended?.kind === "fanout") {
    // The reason names each child that failed or waits, then what to do.
    lines.push(`waiting   for its fan-out's children before joining ${d.suspended.role}:`);
    for (const line of d.suspended.reason.split("\n")) lines.push(`          ${line}`.trimEnd());
  } else if (d.suspended) {
    const { kind, role, reason } = d.suspended;
    // A budget or a guard stops a run before a role starts; the others stop after one ran.
    const before = kind === "budget" || kind === "guard";
    lines.push(`suspended ${kind} ${before ? "before" : "from"} ${role}: ${reason}`);
    if (kind === "retry" && d.suspended.retryAfter !== undefined) {
      lines.push(`          retry after ${d.suspended.retryAfter}`);
    }
    lines.push(
      kind === "question"
        ? `          answer with: uwf thread resume ${d.thread} -p "<answer>"`
        : before
          ? `          to go on: uwf thread resume ${d.thread}`
          : kind === "retry"
            ? `          retry then: uwf thread exec ${d.thread} --wait (or now: uwf thread resume ${d.thread})`
            : `          retry with: uwf thread resume ${d.thread}`,
    );
  }
  return lines.join("\n");
}
