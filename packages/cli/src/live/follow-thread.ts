import type { ThreadEvent, UwfEvent } from "@united-workforce/protocol";
import { eventOf, followLog } from "@united-workforce/util";
import type { ProgressView } from "./progress.js";

export interface FollowThreadOptions {
  home: string;
  thread: string;
  progress: ProgressView;
  /** Resolves true when the run being followed has ended, false when the wait gave up. */
  ended: Promise<boolean>;
  /** Ctrl-C: stop following at once. */
  signal: AbortSignal;
  /** Printed before anything else once the history is read: which run is followed. */
  announce(current: ThreadEvent | null): void;
  /** When the run began (its lease's `acquiredAt`): its log is read from that day on. */
  since?: string;
}

/**
 * Show another process's run of `thread` as exec shows its own: what it is doing now (the step
 * that started and has not ended yet, with the agent's last line), then every event as it is
 * logged, until the run ends. Everything comes from the process log, where every exec,
 * foreground or background, logs its events with the thread id (and a fan-out's children with
 * their parent's).
 */
export async function followThread(options: FollowThreadOptions): Promise<void> {
  const { progress, thread } = options;
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  options.signal.addEventListener("abort", stop, { once: true });
  const history: ThreadEvent[] = [];
  const inFamily = familyOf(thread);
  let live = false;
  const following = followLog(
    {
      home: options.home,
      signal: controller.signal,
      from: "start",
      ...(options.since === undefined ? {} : { sinceDay: options.since.slice(0, 10) }),
      onCaughtUp: () => {
        live = true;
        const now = currentSteps(history);
        // The announcement names the watched thread's own step when it has one under way.
        options.announce(now.find((event) => event.thread === thread) ?? now[0] ?? null);
        for (const event of now) progress.handle(event);
      },
    },
    (record) => {
      const event = eventOf(record);
      if (event === null || !inFamily(event)) return;
      if (live) progress.handle(event);
      else history.push(event);
    },
  );
  let ended = false;
  try {
    ended = await Promise.race([options.ended, following.then(() => false)]);
  } finally {
    // The exec logs its last events before it lets the lease go: the last read sees them.
    controller.abort();
    await following;
    options.signal.removeEventListener("abort", stop);
    // A step still running when the run ended was cut short (its exec was killed).
    progress.stop(ended ? "interrupted" : "left");
  }
}

/**
 * Which events belong to `thread`'s run: its own, and those of the threads its fan-outs made, at
 * any depth, as its exec shows them. A child's events name its parent (`parent`), and a child's
 * first event comes before any of its own children's, so the family grows as the log is read.
 */
export function familyOf(thread: string): (event: UwfEvent) => event is ThreadEvent {
  const family = new Set([thread]);
  return (event): event is ThreadEvent => {
    if (!("thread" in event)) return false;
    if (family.has(event.thread)) return true;
    if (!("parent" in event) || event.parent === undefined || !family.has(event.parent)) {
      return false;
    }
    family.add(event.thread);
    return true;
  };
}

/**
 * The steps running now according to the log so far, one per thread of the family in the order
 * they started: each thread's last start that has not finished or failed, with the agent's
 * latest output line; or an exec --wait waiting for a retry time, when that is the last thing
 * its thread logged. Empty between steps.
 */
export function currentSteps(history: readonly ThreadEvent[]): ThreadEvent[] {
  const now = new Map<string, { event: ThreadEvent; output: ThreadEvent | null }>();
  for (const event of history) {
    switch (event.event) {
      case "step.start":
      case "exec.wait":
        // A thread's new state goes after the others', as it came.
        now.delete(event.thread);
        now.set(event.thread, { event, output: null });
        break;
      case "adapter.output": {
        const step = now.get(event.thread);
        if (step?.event.event === "step.start") step.output = event;
        break;
      }
      case "step.done":
      case "step.failed":
        now.delete(event.thread);
        break;
    }
  }
  return [...now.values()].flatMap(({ event, output }) => (output ? [event, output] : [event]));
}
