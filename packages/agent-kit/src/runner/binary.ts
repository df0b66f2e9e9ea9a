/**
 * An adapter binary's entry, the only place that sets the exit code. The first SIGINT/SIGTERM
 * aborts the step (the adapter ends its agent's process group); a second one is re-raised with
 * the default action, so the process ends at once and its parent sees the signal.
 */
export async function runAgentBinary(
  run: (argv: string[], io: { signal: AbortSignal }) => Promise<number>,
  options: {
    /**
     * Exit as soon as `run` has returned instead of when the event loop drains, which spares
     * Node tearing the environment and heap down piece by piece (≈ 2 ms of CPU per step for
     * uwf-mock, issue 11). Only for an adapter that leaves nothing running once its step is
     * done: `spawnAgentCli` waits for the agent CLI's exit, kills what is left in its process
     * group and closes its pipes before it returns, so the CLI adapters set it; an adapter
     * that closes something after `run` (uwf-acp's agents) exits by itself afterwards.
     */
    exitWhenDone?: boolean;
  } = {},
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
  const code = await run(process.argv.slice(2), { signal: controller.signal });
  // Output went out through blocking writes (writeToFd), so exiting loses none of it.
  if (options.exitWhenDone === true) process.exit(code);
  process.exitCode = code;
}
