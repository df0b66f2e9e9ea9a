/** What the CLI is given by its entry: its streams, environment, signal and terminal. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Aborted by a signal (inside `interruptible`) or by a closed stdout/stderr. */
  signal: AbortSignal;
  /**
   * Run `work` with SIGINT, SIGTERM and SIGHUP aborting `signal` instead of ending the
   * process, for commands that must stop their adapter and release their lock.
   */
  interruptible<T>(work: () => Promise<T>): Promise<T>;
  self: readonly string[];
  /**
   * The command ended on the signal as its contract says (a fleet worker told to stop while it
   * waited for work): its own exit code stands instead of 130.
   */
  signalHandled?(): void;
  /** The width of the terminal on descriptor 1 or 2, or undefined when it is not a terminal. */
  columns?(fd: 1 | 2): number | undefined;
}
