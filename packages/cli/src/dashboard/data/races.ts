import type { Runner } from "@united-workforce/engine";
import type { ThreadPointer, ThreadStatus, Usage } from "@united-workforce/protocol";
import { stepListEntry } from "../../commands/step/list-entry.js";
import { threadStatus } from "./threads.js";

// The races a thread page shows side by side: the thread's own (`thread race`), or, on a fork's
// page, the race it runs in.

/** One fork of a race as its column shows it: agent, status, outcome and its step's figures. */
export interface RaceColumn {
  thread: string;
  title: string | null;
  agent: string;
  status: ThreadStatus;
  /** won or lost once promoted; else finished (it stored its step), failed, or pending. */
  outcome: "won" | "lost" | "finished" | "failed" | "pending";
  /** The step it ran after the race's step, or null while it has none. */
  step: {
    hash: string;
    role: string;
    status: string;
    durationMs: number;
    usage: Usage;
    output: Record<string, unknown>;
  } | null;
  /** Why it stopped without a step (a failed agent), when it did. */
  reason: string | null;
}

export interface RaceView {
  race: string;
  /** The thread raced, and the step its forks were made at. */
  of: string;
  at: string;
  /** Whose promotion moved the thread raced (null: none yet). */
  promoted: string | null;
  forks: RaceColumn[];
}

/** The races of the thread (its own, or the one it is a fork in), each with its forks. */
export async function raceViews(runner: Runner, pointer: ThreadPointer): Promise<RaceView[]> {
  const { racesOf } = await import("@united-workforce/engine");
  const raced = pointer.race === undefined ? pointer : await raceOriginal(runner, pointer.race.of);
  if (raced === null) return [];
  const views: RaceView[] = [];
  for (const { raced: race, forks } of await racesOf(runner.store, raced)) {
    if (pointer.race !== undefined && pointer.race.id !== race.id) continue;
    const columns: RaceColumn[] = [];
    for (const fork of forks) columns.push(await column(runner, fork, race.at));
    const promoted = raced.promotedFrom?.race === race.id ? raced.promotedFrom.fork : null;
    views.push({ race: race.id, of: raced.thread, at: race.at, promoted, forks: columns });
  }
  return views;
}

/** The thread a fork raced; null when it is gone from this store (an imported fork). */
async function raceOriginal(runner: Runner, thread: string): Promise<ThreadPointer | null> {
  return (await runner.store.threads.exists(thread)) ? runner.store.threads.get(thread) : null;
}

async function column(runner: Runner, fork: ThreadPointer, at: string): Promise<RaceColumn> {
  const { walkBack } = await import("@united-workforce/engine");
  const { cas } = runner.store;
  let step: RaceColumn["step"] = null;
  if (fork.head !== at) {
    // The step right after the race's: the one its agent ran in the race.
    for await (const { hash, step: payload } of walkBack(cas, fork.head)) {
      if ((payload.prev ?? payload.start) !== at) continue;
      const { entry, output } = await stepListEntry(cas, hash, payload);
      step = { ...entry, output };
      break;
    }
  }
  const row = await threadStatus(runner, fork.thread);
  return {
    thread: fork.thread,
    title: fork.title ?? null,
    agent: fork.race?.agent ?? "",
    status: row.status,
    outcome: fork.race?.outcome ?? (step !== null ? "finished" : failedOrPending(fork)),
    step,
    reason: step === null ? (fork.suspended?.reason ?? null) : null,
  };
}

function failedOrPending(fork: ThreadPointer): "failed" | "pending" {
  return fork.status === "suspended" ? "failed" : "pending";
}
