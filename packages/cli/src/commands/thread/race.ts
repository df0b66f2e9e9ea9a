import type { Runner, RunResult } from "@united-workforce/engine";
import {
  ExitCode,
  type StepPayload,
  type ThreadPointer,
  type ThreadRaceDocument,
} from "@united-workforce/protocol";
import {
  diffStatText,
  durationText,
  errorMessage,
  isoTime,
  newUlid,
  sanitizeTerminalText,
  tokensText,
  UwfError,
  usdText,
} from "@united-workforce/util";
import { renderTable } from "../../output/table.js";
import { type CommandContext, defineCommand, result } from "../command.js";
import { forkThread } from "../step/fork.js";
import { openRunner } from "./shared.js";

type RaceFork = ThreadRaceDocument["forks"][number];

export default defineCommand({
  path: ["thread", "race"],
  interruptible: true,
  summary: "race agents on a thread's next step: one fork per agent, run at once, compared",
  description: [
    "Forks the thread once per agent at --at (default: its head) with `uwf step fork`'s machinery (each fork in a worktree of its own when the thread has one), runs every fork's next step at the same time with its agent, and prints a comparison: the fork, its agent, the step's `$status`, its other output fields, duration, tokens, cost, and the diff stat when the step recorded one. One agent failing or timing out does not stop the others; Ctrl-C or SIGTERM stops them all. Exit 0 when at least one fork finished its step, 4 when none did, 130 when interrupted.",
    "`uwf thread race promote <fork>` makes the chosen fork the thread that goes on: the raced thread's id now points at the fork's head (its worktree too, when the fork has one), so `uwf thread exec <thread>` continues from the winner; the fork is marked won, the others lost, and all are kept. Promotion is refused, with nothing written, for a thread that is no fork of a race, a fork that stored no step, or a race whose thread moved on since it began.",
  ].join("\n"),
  args: [
    {
      name: "thread",
      type: "thread",
      description: "the thread to race (or `promote`)",
      keywords: ["promote"],
    },
    {
      name: "fork",
      type: "thread",
      description: "with promote: the fork that won",
      required: false,
    },
  ],
  options: [
    {
      flags: "--agents <list>",
      type: "string",
      description: "the agents to race, comma-separated: aliases, commands on PATH, or paths",
    },
    {
      flags: "--at <step>",
      type: "hash",
      description: "the step to fork at (default: the thread's head)",
    },
  ],
  examples: [
    "uwf thread race 01JD… --agents claude,codex",
    "uwf thread race 01JD… --at 0K4Q8Z3M1XH2C --agents claude,codex,builtin",
    "uwf thread race promote 01JE…",
  ],
  async run(ctx, [first, fork], options) {
    if (first === "promote") {
      if (fork === undefined) {
        throw new UwfError("USAGE", "name the fork to promote", {
          hint: "uwf thread race promote <fork> (thread show <thread> lists its races)",
        });
      }
      if (options.agents !== undefined || options.at !== undefined) {
        throw new UwfError("USAGE", "promote takes no --agents or --at", {
          hint: `uwf thread race promote ${fork}`,
        });
      }
      return promote(ctx, fork);
    }
    if (fork !== undefined) {
      throw new UwfError("USAGE", `unexpected argument ${fork}`, {
        hint: `uwf thread race ${first} --agents <a>,<b>, or uwf thread race promote <fork>`,
      });
    }
    return race(ctx, first!, agentList(options.agents), options.at);
  },
});

/** The agents of `--agents`: at least two, each named. */
function agentList(given: string | undefined): string[] {
  const agents = (given ?? "")
    .split(",")
    .map((agent) => agent.trim())
    .filter((agent) => agent !== "");
  if (agents.length < 2) {
    throw new UwfError("USAGE", "a race needs at least two agents", {
      hint: "uwf thread race <thread> --agents <a>,<b>[,…]",
    });
  }
  return agents;
}

async function race(ctx: CommandContext, thread: string, agents: string[], at?: string) {
  const { recordRace } = await import("@united-workforce/engine");
  const runner = await openRunner(ctx, { moves: true });
  const original = await runner.store.threads.get(thread);
  const step = at ?? original.head;
  const base = await pointerAt(runner, original, step);
  // Every agent is checked before anything is written: a typo forks nothing.
  if ((await runner.next(base)) === null) {
    throw new UwfError("THREAD_STATE", `thread ${thread} runs no role after step ${step}`, {
      hint: `It completed or waits for a human there: uwf thread show ${thread}`,
    });
  }
  for (const agent of agents) await runner.checkRun(base, agent);
  const id = newUlid();
  await recordRace(runner.store, thread, { id, at: step, head: original.head });
  const forks: { pointer: ThreadPointer; agent: string }[] = [];
  for (const agent of agents) {
    const title = `${original.title ?? original.workflow} (race: ${agent})`;
    const pointer = await forkThread(ctx, runner, {
      at: step,
      start: original.start,
      title,
      agent,
      race: { id, of: thread, at: step, agent },
    });
    forks.push({ pointer, agent });
    ctx.progress(`fork ${pointer.thread}: ${agent}`);
  }
  ctx.events.emit("thread.race.started", {
    thread,
    race: id,
    at: step,
    forks: forks.map((f) => ({ thread: f.pointer.thread, agent: f.agent })),
  });
  // Each fork runs under its own lease; one failing never stops the others, a signal stops all.
  const stopProgress = raceProgress(ctx, new Map(forks.map((f) => [f.pointer.thread, f.agent])));
  const runs = await Promise.allSettled(
    forks.map(({ pointer, agent }) => runner.exec(pointer.thread, { count: 1, agent })),
  ).finally(stopProgress);
  const rows: RaceFork[] = [];
  for (const [i, { pointer, agent }] of forks.entries()) {
    rows.push(await compared(runner, pointer.thread, agent, step, runs[i]!, ctx.signal.aborted));
  }
  const finished = rows.filter((row) => row.outcome === "finished").length;
  ctx.events.emit("thread.race.finished", {
    thread,
    race: id,
    finished,
    failed: rows.length - finished,
  });
  const doc: ThreadRaceDocument = { thread, race: id, at: step, forks: rows };
  const exitCode =
    finished > 0 ? ExitCode.ok : ctx.signal.aborted ? ExitCode.interrupted : ExitCode.agentFailed;
  return result(doc, renderRace, exitCode);
}

/** A line on stderr as each fork's step starts, is stored or fails; returns how to stop. */
function raceProgress(ctx: CommandContext, agents: ReadonlyMap<string, string>): () => void {
  return ctx.events.subscribe((event) => {
    if (!("thread" in event)) return;
    const agent = agents.get(event.thread);
    if (agent === undefined) return;
    const fork = `fork ${event.thread} (${sanitizeTerminalText(agent)})`;
    if (event.event === "step.start") ctx.progress(`${fork}: ${event.role} runs`);
    if (event.event === "step.done") ctx.progress(`${fork}: ${event.role} → ${event.status}`);
    if (event.event === "step.failed") ctx.progress(`${fork}: ${event.role} failed`);
  });
}

/** The thread as it was at `step` (one of its own steps, or its StartNode): what a fork gets. */
async function pointerAt(
  runner: Runner,
  pointer: ThreadPointer,
  step: string,
): Promise<ThreadPointer> {
  if (step === pointer.head) return pointer;
  const { walkBack } = await import("@united-workforce/engine");
  let steps = 0;
  let role: string | null = null;
  let found = step === pointer.start;
  for await (const each of walkBack(runner.store.cas, pointer.head)) {
    if (each.hash === step) {
      found = true;
      role = each.step.role;
    }
    if (found) steps++;
  }
  if (!found) {
    throw new UwfError("STEP_NOT_FOUND", `step ${step} is not in thread ${pointer.thread}`, {
      hint: `uwf step list ${pointer.thread} lists its steps`,
    });
  }
  return {
    ...pointer,
    head: step,
    steps,
    status: "idle",
    currentRole: role,
    suspended: null,
    updatedAt: isoTime(),
  };
}

/** One fork after its run: the step it stored (if any) with its output and figures. */
async function compared(
  runner: Runner,
  thread: string,
  agent: string,
  at: string,
  run: PromiseSettledResult<RunResult>,
  interrupted: boolean,
): Promise<RaceFork> {
  const pointer = await runner.store.threads.get(thread);
  const status = await runner.status(pointer);
  const row: RaceFork = {
    thread,
    agent,
    status,
    outcome: "failed",
    step: null,
    role: null,
    output: null,
    durationMs: null,
    usage: null,
  };
  if (pointer.worktree !== undefined) row.worktree = pointer.worktree.path;
  if (pointer.head === at) {
    const stopped = run.status === "fulfilled" && run.value.document.stoppedBecause === "stopped";
    row.outcome = interrupted || stopped ? "interrupted" : "failed";
    const reason = run.status === "rejected" ? errorMessage(run.reason) : pointer.suspended?.reason;
    if (reason !== undefined) row.reason = reason;
    return row;
  }
  const { readStep } = await import("@united-workforce/engine");
  const { cas } = runner.store;
  const step: StepPayload = await readStep(cas, pointer.head);
  row.outcome = "finished";
  row.step = pointer.head;
  row.role = step.role;
  row.output = await cas.getPayload<Record<string, unknown>>(step.output);
  row.durationMs = step.usage.durationMs ?? step.completedAtMs - step.startedAtMs;
  row.usage = step.usage;
  if (step.git !== undefined) {
    const { files, insertions, deletions } = step.git.diffStat;
    row.diffStat = { files, insertions, deletions };
  }
  return row;
}

/** The comparison: one row per fork; the diff stat column only when a step recorded one. */
function renderRace(d: ThreadRaceDocument): string {
  const withDiff = d.forks.some((fork) => fork.diffStat !== undefined);
  const table = renderTable(
    [
      { header: "fork" },
      { header: "agent" },
      { header: "outcome" },
      { header: "$status" },
      { header: "took", align: "right" },
      { header: "tokens", align: "right" },
      { header: "cost", align: "right" },
      ...(withDiff ? [{ header: "diff", align: "right" as const }] : []),
      { header: "output" },
    ],
    d.forks.map((fork) => [
      fork.thread,
      sanitizeTerminalText(fork.agent),
      fork.outcome,
      String(fork.output?.$status ?? "—"),
      fork.durationMs === null ? "—" : durationText(fork.durationMs),
      fork.usage === null ? "—" : tokensText(fork.usage),
      typeof fork.usage?.costUsd === "number" ? usdText(fork.usage.costUsd) : "?",
      ...(withDiff ? [fork.diffStat === undefined ? "—" : diffStatText(fork.diffStat)] : []),
      fork.output === null ? oneLine(fork.reason ?? "") : outputFields(fork.output),
    ]),
  );
  const next = d.forks.some((fork) => fork.outcome === "finished")
    ? "promote the one to go on with: uwf thread race promote <fork>"
    : "no fork finished; retry one with: uwf thread resume <fork>";
  return [`race ${d.race} of ${d.thread} at ${d.at}`, table, next].join("\n");
}

/** The output's fields but `$status`, as `key=value` on one line, cut to stay readable. */
function outputFields(output: Record<string, unknown>): string {
  const text = Object.entries(output)
    .filter(([key]) => key !== "$status")
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" ");
  return oneLine(text);
}

function oneLine(text: string): string {
  const line = sanitizeTerminalText(text.replace(/\s+/g, " ").trim());
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

/** `thread race promote`: the raced thread goes on from the fork's head. */
async function promote(ctx: CommandContext, fork: string) {
  const { promoteFork } = await import("@united-workforce/engine");
  const runner = await openRunner(ctx, { moves: true });
  const promoted = await promoteFork(runner.store, fork, async (head) => {
    const pointer = await runner.store.threads.get(fork);
    const kept = await forkThread(ctx, runner, {
      at: head,
      start: pointer.start,
      title: `${pointer.title ?? pointer.workflow} (before promote)`,
    });
    return kept.thread;
  });
  const { pointer, promotion } = promoted;
  ctx.events.emit("thread.race.promoted", {
    thread: pointer.thread,
    race: promotion.race,
    fork,
    head: pointer.head,
  });
  const forks: RaceFork[] = [];
  for (const each of promoted.forks) {
    forks.push({
      thread: each.thread,
      agent: each.race?.agent ?? "",
      status: await runner.status(each),
      outcome: each.race?.outcome ?? "pending",
      step: each.head === each.race?.at ? null : each.head,
      role: each.currentRole,
      output: null,
      durationMs: null,
      usage: null,
    });
  }
  const doc: ThreadRaceDocument = {
    thread: pointer.thread,
    race: promotion.race,
    at: promoted.forks[0]?.race?.at ?? pointer.head,
    forks,
    promoted: fork,
    head: pointer.head,
    promotedFrom: promotion,
  };
  return result(doc, (d) =>
    [
      `${d.thread} goes on from ${d.promoted} (head ${d.head}); the other forks are kept, marked lost`,
      ...(d.promotedFrom?.kept === undefined
        ? []
        : [`its own steps after the race's step are kept in ${d.promotedFrom.kept}`]),
      `run it on with: uwf thread exec ${d.thread}`,
    ].join("\n"),
  );
}
