import type {
  RebaseChange,
  RebaseRoute,
  ThreadPointer,
  ThreadRebaseDocument,
} from "@united-workforce/protocol";
import { type CommandContext, defineCommand, result } from "../command.js";
import { LIMIT_OPTIONS, limitFlags } from "./limits.js";
import { openRunner, progressView, QUIET_OPTION, resolveUnstored, runResult } from "./shared.js";
import { worktreePlace } from "./worktrees.js";

export default defineCommand({
  path: ["thread", "rebase"],
  interruptible: true,
  summary:
    "re-run a thread under an edited workflow: reuse every step whose role and edge prompt are unchanged, run on from the first that changed",
  description: [
    "Walks the thread's steps oldest first. A step is reused while its key is unchanged: its role's definition (every field, the output schema included), the edge prompt that led into it (target, rendered prompt and location, from the same output under both graphs) and its parent. Reused steps run no agent and keep their hashes: the new thread shares the recorded steps up to the last one reused, like a fork there.",
    "At the first step whose key changed, a new thread (titled `… (rebased)`) parts from the recorded one and runs on under the edited workflow with the thread's agent, like `uwf thread exec`; the recorded thread keeps its id and history. The report names the reused steps, the first changed step and why (the role's changed fields, a diff of the edge prompt).",
    "--dry-run reports the same without storing anything, not even a workflow read from a file. A rebase onto the workflow the thread is pinned to reuses everything and does nothing. The join of an unchanged fan-out is reused with its recorded children. When only the workflow a fan-out's children run changed, the recorded children are rebased under it too (reusing their unchanged steps) and joined; any other edit of the fan-out, of its join role or of a step before it runs the fan-out afresh.",
  ].join("\n"),
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  options: [
    {
      flags: "-w, --workflow <workflow>",
      type: "string",
      required: true,
      description: "the edited workflow: a file, hash, .workflows/ name or registered name",
    },
    {
      flags: "--dry-run",
      type: "boolean",
      description:
        "say what would be reused and where the thread would part; store and run nothing",
    },
    {
      flags: "-c, --count <n>",
      type: "integer",
      min: 1,
      description:
        "run up to n steps from where it parts (default: as many as the recorded thread has from there, at least 1)",
      hint: "Say how many steps to run at most, e.g. --count 5.",
    },
    {
      flags: "--agent <alias|command>",
      type: "string",
      description:
        "agent for the steps that run: an alias, a command on PATH, or a path from here (default: the one the thread was run with)",
    },
    ...LIMIT_OPTIONS,
    QUIET_OPTION,
  ],
  examples: [
    "uwf thread rebase 01JD… --workflow .workflows/solve-issue.yaml --dry-run",
    "uwf thread rebase 01JD… -w .workflows/solve-issue.yaml",
    "uwf thread rebase 01JD… -w solve-issue -c 3 --format json",
  ],
  async run(ctx, [thread], options) {
    const { planRebase, rebasesFanoutChildren } = await import("@united-workforce/engine");
    const limits = limitFlags(options);
    const store = await ctx.store();
    // Read from a file, the workflow is stored only once the rebase is going to write.
    const workflow = await resolveUnstored(ctx, store, options.workflow!);
    const plan = await planRebase(store, thread!, workflow);
    const dryRun = options.dryRun === true;
    const doc: ThreadRebaseDocument = { ...plan, dryRun, rebased: null };
    const childrenAlong = rebasesFanoutChildren(plan.firstChange);
    const render = (d: ThreadRebaseDocument) => renderRebase(d, childrenAlong);
    if (dryRun || plan.sameWorkflow) return result(doc, render);

    const { materialiseWorkflow, writeRebase } = await import("@united-workforce/engine");
    if (workflow.unstored !== null) await materialiseWorkflow(store.cas, workflow.unstored);
    const progress = progressView(ctx, options.quiet);
    try {
      const runner = await openRunner(ctx, { progress, moves: true });
      const recorded = await store.threads.get(plan.thread);
      // A thread with a git worktree: the rebased one gets its own, from that thread's branch.
      const forkWorktree = recorded.worktree === undefined ? undefined : await worktreeForker(ctx);
      const written = await writeRebase(store, plan, forkWorktree ? { forkWorktree } : {});
      const rebased = await runner.settle(written.pointer);
      const { children } = written;
      doc.rebased = { thread: rebased.thread, start: rebased.start, head: rebased.head, children };
      ctx.events.emit("thread.rebased", {
        thread: rebased.thread,
        from: plan.thread,
        workflow: plan.workflow.hash,
        reused: plan.reused.length,
        firstChange: plan.firstChange?.step ?? null,
      });
      for (const child of children) {
        const { thread, from, workflow, reused, firstChange } = child;
        ctx.events.emit("thread.rebased", { thread, from, workflow, reused, firstChange });
      }
      if (plan.firstChange === null || rebased.status !== "idle") {
        return result(doc, render);
      }
      const count = options.count ?? Math.max(1, plan.steps - plan.reused.length);
      const ran = await runner.exec(rebased.thread, { count, agent: options.agent, limits });
      doc.run = ran.document;
      const run = runResult(ran, { quiet: options.quiet });
      return result(
        doc,
        (d, view) => `${render(d)}\n${run.text(run.document, view)}`.trimEnd(),
        ran.exitCode,
      );
    } finally {
      progress.stop();
    }
  },
});

async function worktreeForker(ctx: CommandContext) {
  const { forkThreadWorktree } = await import("@united-workforce/engine");
  const place = await worktreePlace(ctx);
  return (thread: string, recorded: ThreadPointer) =>
    forkThreadWorktree(place, recorded.worktree!, recorded.cwd, thread);
}

/** The report; `childrenAlong`: the recorded fan-out children are rebased too. */
function renderRebase(doc: ThreadRebaseDocument, childrenAlong: boolean): string {
  const lines = [
    `${doc.thread}: ${doc.steps} step${doc.steps === 1 ? "" : "s"} of ${doc.pinned.name} ${doc.pinned.hash} rebased onto ${doc.workflow.name} ${doc.workflow.hash}${doc.dryRun ? " (dry run: nothing stored)" : ""}`,
  ];
  if (doc.sameWorkflow) {
    lines.push(
      "  the thread is already pinned to this workflow: every step is reused, nothing to do",
    );
    return lines.join("\n");
  }
  const reused = doc.reused;
  lines.push(
    reused.length === 0
      ? "  reused: none"
      : `  reused: ${reused.length} step${reused.length === 1 ? "" : "s"} (${rangeOf(reused)}), no agent runs for them`,
  );
  const change = doc.firstChange;
  if (change === null) {
    lines.push("  changed: nothing; the rebased thread goes on as the recorded one would");
  } else {
    lines.push(...changeLines(change));
  }
  if (doc.rebased !== null) {
    lines.push(`  rebased thread: ${doc.rebased.thread} (${doc.thread} is kept as it was)`);
    for (const child of doc.rebased.children) {
      lines.push(
        `    fan-out child ${child.from} rebased as ${child.thread}: ${child.reused} step${child.reused === 1 ? "" : "s"} reused${child.firstChange === null ? "" : `, parts at step ${child.firstChange}`}`,
      );
    }
  } else if (doc.dryRun && change !== null) {
    const runs = change.hash === null ? "from the head" : `from step ${change.step}`;
    lines.push(`  a rebase would make a new thread and run its agent ${runs}`);
    if (childrenAlong) {
      lines.push(
        "  the fan-out's recorded children would be rebased under the edited child workflow, reusing their unchanged steps",
      );
    }
  }
  return lines.join("\n");
}

function rangeOf(reused: ThreadRebaseDocument["reused"]): string {
  const first = reused[0]!;
  const last = reused.at(-1)!;
  return first === last ? `step ${first.step} ${first.role}` : `steps ${first.step}–${last.step}`;
}

function changeLines(change: RebaseChange): string[] {
  const where =
    change.hash === null
      ? `after the head: the route from ${change.from}`
      : `step ${change.step} ${change.hash} (${change.role})`;
  const lines = [`  first changed: ${where}`];
  if (change.roleChange !== null) {
    const { role, fields } = change.roleChange;
    lines.push(`    role ${role} changed: ${fields.join(", ")}`);
  }
  if (change.routeChange !== null) {
    const { recorded, rebased, diff } = change.routeChange;
    lines.push(`    edge from ${change.from} changed:`);
    if (recorded.target !== rebased.target) {
      lines.push(`      target: ${target(recorded)} → ${target(rebased)}`);
    }
    if (recorded.location !== rebased.location) {
      lines.push(
        `      location: ${recorded.location ?? "(the thread's cwd)"} → ${rebased.location ?? "(the thread's cwd)"}`,
      );
    }
    const fanouts = [recorded.fanout, rebased.fanout].map((f) => (f ? JSON.stringify(f) : "none"));
    if (fanouts[0] !== fanouts[1]) lines.push(`      fan-out: ${fanouts[0]} → ${fanouts[1]}`);
    for (const line of diff) lines.push(`      ${line}`);
  }
  return lines;
}

function target(route: RebaseRoute): string {
  return route.target ?? `a routing error (${route.error})`;
}
