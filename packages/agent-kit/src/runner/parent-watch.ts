/**
 * A signal that fires when the process that started this adapter is gone. If `uwf` is killed
 * mid-step, nobody will verify this step: the agent should stop spending tokens instead of
 * running until the next exec takes the lock over. An orphan is re-parented, so `process.ppid`
 * changes; that is the whole test.
 */
export function watchParent(intervalMs: number | null = 500): {
  signal: AbortSignal;
  stop(): void;
} {
  const controller = new AbortController();
  if (intervalMs === null) return { signal: controller.signal, stop: () => {} };
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer);
      controller.abort(new Error("the process that started this adapter exited"));
    }
  }, intervalMs);
  // Watching must never keep an adapter alive on its own.
  timer.unref();
  return { signal: controller.signal, stop: () => clearInterval(timer) };
}

/** A signal that fires when any of the given ones does. */
export function anySignal(signals: readonly (AbortSignal | undefined)[]): AbortSignal {
  const controller = new AbortController();
  for (const signal of signals) {
    if (!signal) continue;
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}
