import { followLog, type LogEvent } from "./follow-log.js";
import { progressFromLog } from "./from-events.js";
import type { ProgressEvent, ProgressView } from "./progress.js";

export interface FollowThreadOptions {
  home: string;
  thread: string;
  progress: ProgressView;
  /** Resolves true when the run being followed has ended, false when the wait gave up. */
  ended: Promise<boolean>;
  /** Ctrl-C: stop following at once. */
  signal: AbortSignal;
  /** Printed before anything else once the history is read: which run is followed. */
  announce(current: ProgressEvent | null): void;
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
  const history: ProgressEvent[] = [];
  const inFamily = familyOf(thread);
  let live = false;
  const following = followLog(
    {
      home: options.home,
      signal: controller.signal,
      from: "start",
      onCaughtUp: () => {
        live = true;
        const now = currentStep(history);
        options.announce(now[0] ?? null);
        for (const event of now) progress.handle(event);
      },
    },
    (line) => {
      if (!inFamily(line)) return;
      const event = progressFromLog(line);
      if (event === null) return;
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
 * Which log lines belong to `thread`'s run: its own, and those of the threads its fan-outs made,
 * at any depth, as its exec shows them. A child's lines name its parent (`parent`), and a child's
 * first line comes before any of its own children's, so the family grows as the log is read.
 */
export function familyOf(thread: string): (line: LogEvent) => boolean {
  const family = new Set([thread]);
  return (line) => {
    if (typeof line.thread !== "string") return false;
    if (family.has(line.thread)) return true;
    if (typeof line.parent !== "string" || !family.has(line.parent)) return false;
    family.add(line.thread);
    return true;
  };
}

/**
 * The step running now according to the log so far: the last start that has not finished or
 * failed, with the agent's latest output line; or an exec --wait waiting for a retry time, when
 * that is the last thing logged. Empty between steps.
 */
export function currentStep(history: readonly ProgressEvent[]): ProgressEvent[] {
  let start = -1;
  for (let i = history.length - 1; i >= 0; i--) {
    const type = history[i]!.type;
    if (type === "waiting") return [history[i]!];
    if (type === "step.finished" || type === "step.failed") return [];
    if (type === "step.started") {
      start = i;
      break;
    }
  }
  if (start === -1) return [];
  const output = history.slice(start + 1).findLast((event) => event.type === "adapter.output");
  return output ? [history[start]!, output] : [history[start]!];
}
