/**
 * An adapter binary's entry, the only place that sets the exit code. The first SIGINT/SIGTERM
 * aborts the step (the adapter ends its agent's process group); a second one is re-raised with
 * the default action, so the process ends at once and its parent sees the signal.
 */
export async function runAgentBinary(
  run: (
    argv: string[],
    io: { signal: AbortSignal; abort: (reason: Error) => void },
  ) => Promise<number>,
  /** The adapter's version, printed for `--version` (or `-V`) alone, before anything else. */
  version?: () => string,
): Promise<void> {
  const argv = process.argv.slice(2);
  if (version !== undefined && argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    process.stdout.write(`${version()}\n`);
    return;
  }
  const controller = new AbortController();
  // Not `controller.signal.aborted`: the parent watch aborts the same signal, and a first
  // SIGTERM after it still deserves the graceful stop.
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
      return;
    }
    signalled = true;
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.exitCode = await run(argv, {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
  });
}
