import { fstatSync, statSync } from "node:fs";
import { ExitCode } from "@united-workforce/protocol";
import { ioError, writeToFd } from "@united-workforce/util";
import { runCli } from "./program.js";

// The `uwf` entry: the only place that exits.
//
// Ctrl-C, SIGTERM and SIGHUP keep their default effect (the process ends at once) except
// while a command that must clean up runs (an exec with its adapter and lock, a join): there
// they abort the command, which stops its adapter and releases its lock, and the exit code
// is 130. A JavaScript handler cannot run while the event loop is blocked, so a handler
// installed for the whole process would leave Ctrl-C ignored during long synchronous work.
// A second signal kills the agents and exits at once (util's registry of the process groups
// this process started; util is loaded by then).
const controller = new AbortController();
let signalled = false;
/** The command ended on the signal as its contract says: its exit code stands. */
let signalHandled = false;
const onSignal = (signal: NodeJS.Signals): void => {
  if (signalled) {
    void import("@united-workforce/util").then(({ killRunningGroups }) => {
      killRunningGroups();
      process.exit(ExitCode.interrupted);
    });
    return;
  }
  signalled = true;
  if (!controller.signal.aborted) controller.abort(signal);
};
const GRACEFUL_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
let armed = 0;
async function interruptible<T>(work: () => Promise<T>): Promise<T> {
  if (armed++ === 0) for (const name of GRACEFUL_SIGNALS) process.on(name, onSignal);
  try {
    return await work();
  } finally {
    // With no listener left, Node restores the signal's default action.
    if (--armed === 0) for (const name of GRACEFUL_SIGNALS) process.off(name, onSignal);
  }
}

// A reader that goes away (`uwf thread exec … 2>&1 | head -1`, a closed terminal) is an
// interrupt, not a reason to exit on the spot with a step half done and a lock held: the
// running command is aborted and cleans up, and what it would still print is dropped.
const closed = new Set<number>();
const write = (fd: number, text: string): void => {
  if (closed.has(fd) || writeToFd(fd, text)) return;
  closed.add(fd);
  if (!controller.signal.aborted) controller.abort("output closed");
};

/**
 * Whether a character device is /dev/null: it has no width either, and asking its stream would
 * make a SyncWriteStream, the stream modules with it (≈ 1.7 ms of a `uwf … >/dev/null 2>&1`).
 * Compared by device number, read once; where there is no /dev/null, nothing is.
 */
let devNull: number | null | undefined;
function isDevNull(rdev: number): boolean {
  if (devNull === undefined) {
    try {
      devNull = statSync("/dev/null").rdev;
    } catch {
      devNull = null;
    }
  }
  return rdev === devNull;
}

// No top-level await: the bundle is CommonJS so that its compiled code can be cached (DESIGN §14).
void runCli(process.argv.slice(2), {
  stdout: (text) => write(1, text),
  stderr: (text) => write(2, text),
  env: process.env,
  // Read when a command needs it: a deleted working directory is then an error that says so,
  // and commands that do not need it still work.
  get cwd() {
    try {
      return process.cwd();
    } catch (error) {
      throw ioError(error);
    }
  },
  signal: controller.signal,
  interruptible,
  signalHandled: () => {
    signalHandled = true;
  },
  self: [process.execPath, process.argv[1] ?? ""],
  // Only a terminal has a width, and only asking a terminal's stream creates no socket.
  columns: (fd) => {
    try {
      const stat = fstatSync(fd);
      if (!stat.isCharacterDevice() || isDevNull(stat.rdev)) return undefined;
    } catch {
      return undefined;
    }
    return (fd === 1 ? process.stdout : process.stderr).columns;
  },
}).then((code) => {
  // Exit now rather than when the event loop drains: Node then skips tearing the environment
  // and the heap down piece by piece (1–3 ms of CPU per process, issue 11). Nothing is left to
  // run by then: all output went out through blocking writes (writeToFd), commands await their
  // work and close the store before they return, and what they leave running on purpose (a
  // background worker, a dashboard's answer process) is detached and unref'd. The code cache
  // is saved in an 'exit' listener, which process.exit runs.
  process.exit(signalled && !signalHandled ? ExitCode.interrupted : code);
});
