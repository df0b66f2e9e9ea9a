import {
  addUsage,
  emptyUsage,
  type ThreadPointer,
  type ThreadPromotion,
  type ThreadRaced,
} from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { isoTime, UwfError } from "@united-workforce/util";
import { writePointer } from "../state/write-pointer.js";
import { takeThread } from "./lease.js";
import { liveHolder } from "./thread-view.js";

/**
 * Record a race on the thread raced (`thread show` lists it, `promote` checks its head against
 * it). Written under the thread's lease, so a running exec of it refuses the race (THREAD_BUSY)
 * instead of having its pointer changed under it.
 */
export async function recordRace(
  store: Store,
  thread: string,
  raced: ThreadRaced,
): Promise<ThreadPointer> {
  const lease = await takeThread(store, thread, "uwf thread race");
  try {
    const pointer = await store.threads.get(thread);
    if (pointer.head !== raced.head) {
      throw new UwfError("THREAD_CONFLICT", `thread ${thread} moved on while the race began`, {
        hint: `Race it again: uwf thread race ${thread} --agents …`,
      });
    }
    return await writePointer(store, { ...pointer, races: [...(pointer.races ?? []), raced] });
  } finally {
    await lease.release();
  }
}

/** A race of a thread, with the forks it made (oldest first). */
export interface RaceOfThread {
  raced: ThreadRaced;
  forks: ThreadPointer[];
}

/** The races of `pointer` with their forks: the threads of its family that name each race. */
export async function racesOf(store: Store, pointer: ThreadPointer): Promise<RaceOfThread[]> {
  const races = pointer.races ?? [];
  if (races.length === 0) return [];
  const forks = await raceForks(store, pointer.start);
  return races.map((raced) => ({
    raced,
    forks: forks.filter((fork) => fork.race?.id === raced.id && fork.race.of === pointer.thread),
  }));
}

/** The threads sharing the StartNode `start` that a race made, oldest first. */
async function raceForks(store: Store, start: string): Promise<ThreadPointer[]> {
  const { items } = await store.threads.list({ start });
  return items
    .flatMap((item) => (item.pointer?.race === undefined ? [] : [item.pointer]))
    .sort((a, b) => a.thread.localeCompare(b.thread));
}

/** What promoting a fork did: the thread that goes on, and each fork of the race as it is now. */
export interface Promotion {
  pointer: ThreadPointer;
  promotion: ThreadPromotion;
  forks: ThreadPointer[];
}

/**
 * `thread race promote`: the thread raced goes on from the fork's head (its head, step count,
 * status, usage added, and the fork's worktree when it has one); the fork is marked won and the
 * race's other forks lost, kept as forks. Refused, with nothing written, for a thread that is no
 * fork of a race, a fork that stored no step, or a race whose thread moved on since it began.
 * `keep` forks the thread's own steps after the race's step (a race `--at` an earlier step)
 * before its head moves, and returns that fork's id.
 */
export async function promoteFork(
  store: Store,
  forkId: string,
  keep: (head: string) => Promise<string>,
): Promise<Promotion> {
  const fork = await store.threads.get(forkId);
  const race = fork.race;
  if (race === undefined) {
    throw notPromotable(`thread ${forkId} is no fork of a race`, `uwf thread show ${forkId}`);
  }
  if (fork.head === race.at) {
    throw notPromotable(
      `fork ${forkId} (${race.agent}) stored no step in race ${race.id}`,
      `Promote a fork that finished, or run this one first: uwf thread exec ${forkId}`,
    );
  }
  const running = await liveHolder(store, forkId);
  if (running !== null) {
    throw new UwfError("THREAD_BUSY", `fork ${forkId} is running (pid ${running.pid})`, {
      hint: `Wait for it: uwf thread join ${forkId}`,
    });
  }
  const lease = await takeThread(store, race.of, "uwf thread race promote");
  try {
    const thread = await store.threads.get(race.of);
    const raced = thread.races?.find((r) => r.id === race.id);
    if (raced === undefined || thread.head !== raced.head) {
      throw notPromotable(
        `thread ${race.of} moved on since race ${race.id} began (head ${thread.head}, was ${raced?.head ?? "unknown"})`,
        `Race it again from where it is: uwf thread race ${race.of} --agents …`,
      );
    }
    const forks = await raceForks(store, thread.start);
    const ofRace = forks.filter((f) => f.race?.id === race.id);
    const kept = raced.head === race.at ? undefined : await keep(raced.head);
    const promotion: ThreadPromotion = {
      race: race.id,
      fork: forkId,
      head: thread.head,
      ...(kept === undefined ? {} : { kept }),
    };
    const moved: ThreadPointer = {
      ...thread,
      head: fork.head,
      steps: fork.steps,
      status: fork.status,
      currentRole: fork.currentRole,
      suspended: fork.suspended,
      usage: addUsage(thread.usage ?? emptyUsage(), fork.usage ?? {}),
      unknownCostSteps: (thread.unknownCostSteps ?? 0) + (fork.unknownCostSteps ?? 0),
      promotedFrom: promotion,
    };
    // The winner's changes are in its worktree: the thread goes on there.
    if (fork.worktree !== undefined) {
      moved.worktree = fork.worktree;
      moved.cwd = fork.cwd;
    }
    const pointer = await writePointer(store, moved);
    const marked: ThreadPointer[] = [];
    for (const each of ofRace) {
      const outcome = each.thread === forkId ? "won" : "lost";
      marked.push(await markOutcome(store, each.thread, outcome));
    }
    return { pointer, promotion, forks: marked };
  } finally {
    await lease.release();
  }
}

/** Mark a fork won or lost (compare-and-swap again when a run of it wrote meanwhile). */
async function markOutcome(
  store: Store,
  thread: string,
  outcome: "won" | "lost",
): Promise<ThreadPointer> {
  for (;;) {
    const pointer = await store.threads.get(thread);
    if (pointer.race === undefined) return pointer;
    const next = { ...pointer, race: { ...pointer.race, outcome }, updatedAt: isoTime() };
    const stored = await store.threads.swap(next, pointer.rev ?? 0);
    if (stored !== null) return stored;
  }
}

function notPromotable(message: string, hint: string): UwfError {
  return new UwfError("RACE_NOT_PROMOTABLE", message, { hint });
}
