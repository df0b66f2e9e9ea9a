/**
 * An adapter binary's entry, the only place that sets the exit code. The first SIGINT/SIGTERM
 * aborts the step (the adapter ends its agent's process group); a second one is re-raised with
 * the default action, so the process ends at once and its parent sees the signal.
 */
export async function runAgentBinary(
  run: (argv: string[], io: { signal: AbortSignal }) => Promise<number>,
): Promise<void> {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
      return;
    }
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.exitCode = await run(process.argv.slice(2), { signal: controller.signal });
}
