import type { EventEmitter } from "node:events";
import type { Readable, Writable } from "node:stream";
import { nodeChildProcess, nodeStream } from "../builtin.js";
import { lookUpCommand } from "./resolve-command.js";

/**
 * A process leading a process group of its own: a child spawned here, or one started earlier
 * (the warm Node the `uwf` bin starts). It emits `exit` (code, signal) once it has ended, and
 * `close` once its pipes are through too.
 */
export type GroupLeader = EventEmitter & {
  readonly pid?: number | undefined;
  readonly stdin: Writable | null;
  readonly stdout: Readable;
  readonly stderr: Readable;
};

export interface ProcessGroupOptions {
  /** A name looked up on `env.PATH`, or a path (a relative one read from `cwd`). */
  command: string;
  args: readonly string[];
  cwd: string;
  /** The whole environment of the process: nothing is inherited. */
  env: Record<string, string | undefined>;
  /**
   * `{ text }`: written to stdin, which is then closed; "open": stdin is the caller's to write
   * and close (a long-lived peer); absent: stdin is /dev/null.
   */
  stdin?: { text: string } | "open";
  /** Between SIGTERM and SIGKILL, and the drain after the leader's exit: one of `KILL_GRACE`. */
  graceMs: number;
  /**
   * A process already leading a group of its own to take instead of spawning one (the warm
   * Node), given the resolved command; null to spawn.
   */
  adopt?(program: string): GroupLeader | null;
}

export interface GroupExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Why the process never ran (ENOENT, EACCES, E2BIG…, as Node's spawn reports it), else null. */
  error: NodeJS.ErrnoException | null;
}

/** Process groups this process started and has not seen end. */
const runningGroups = new Set<number>();

/**
 * Start `command` with no shell as the leader of a new process group, so that the group can be
 * signalled whole: whatever it starts (a shell, a language server) ends with it. A start that
 * fails is reported as Node reports it, by `exited` with an errno error (the command is resolved
 * here, execvp's way, so a missing one is ENOENT before anything is spawned).
 */
export function startProcessGroup(options: ProcessGroupOptions): ProcessGroup {
  return new ProcessGroup(options);
}

/**
 * A running process group and its leader's pipes. One grace policy ends it: SIGTERM to the
 * group, SIGKILL after the grace. When the leader exits, what is left of its group is killed,
 * so nothing it started outlives it or holds its pipes; a process that left the group and still
 * holds them is not waited for longer than the grace.
 */
export class ProcessGroup {
  /** The leader's pid, which is the group's id; undefined when it never started. */
  readonly pid: number | undefined;
  /** The leader's stdin when it was asked "open" (or given text still being written). */
  readonly stdin: Writable | null;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Resolves once the leader has exited, or failed to start. */
  readonly exited: Promise<GroupExit>;
  /** Resolves once the leader has exited and its pipes are read to their end (or drained). */
  readonly closed: Promise<GroupExit>;
  #graceMs: number;
  #exit: GroupExit | null = null;
  #isClosed = false;
  #killTimer: NodeJS.Timeout | undefined;
  #drainTimer: NodeJS.Timeout | undefined;
  #onExited: (exit: GroupExit) => void = () => {};
  #onClosed: (exit: GroupExit) => void = () => {};

  constructor(options: ProcessGroupOptions) {
    this.#graceMs = options.graceMs;
    this.exited = new Promise((resolve) => {
      this.#onExited = resolve;
    });
    this.closed = new Promise((resolve) => {
      this.#onClosed = resolve;
    });
    let leader: GroupLeader | null = null;
    try {
      leader = launch(options);
    } catch (error) {
      this.#fail(error as NodeJS.ErrnoException);
    }
    const pipes = leader ?? noPipes(options.stdin === "open");
    this.pid = leader?.pid;
    this.stdin = pipes.stdin;
    this.stdout = pipes.stdout;
    this.stderr = pipes.stderr;
    if (leader === null) return;
    if (this.pid !== undefined) runningGroups.add(this.pid);
    if (leader.stdin) {
      // A process that exits without reading all of its stdin (a usage error) closes the pipe:
      // its exit says what happened, the EPIPE adds nothing.
      leader.stdin.on("error", () => {});
      if (typeof options.stdin === "object") leader.stdin.end(options.stdin.text);
    }
    leader.once("error", (error: NodeJS.ErrnoException) => {
      if (this.#exit !== null) return;
      this.signal("SIGKILL");
      this.#fail(error);
    });
    leader.once("exit", (exitCode: number | null, signal: NodeJS.Signals | null) => {
      this.#exit ??= { exitCode, signal, error: null };
      clearTimeout(this.#killTimer);
      // The rest of the group goes with its leader: it must not outlive it, nor keep its pipes
      // open and the caller waiting.
      this.signal("SIGKILL");
      this.#onExited(this.#exit);
      // A process that left the group may still hold the pipes: stop reading after the grace.
      this.#drainTimer = setTimeout(() => {
        leader.stdin?.destroy();
        leader.stdout.destroy();
        leader.stderr.destroy();
        this.#close();
      }, this.#graceMs);
    });
    leader.once("close", () => this.#close());
  }

  /** The leader's exit once it has exited, null while it runs. */
  get exit(): GroupExit | null {
    return this.#exit;
  }

  /** Send `signal` to the whole group; false when there is none to signal. */
  signal(signal: NodeJS.Signals): boolean {
    return this.pid !== undefined && !this.#isClosed && signalGroup(this.pid, signal);
  }

  /** SIGTERM to the group now, SIGKILL after the grace. Once the leader has exited, nothing. */
  terminate(): void {
    if (this.#exit !== null) return;
    this.signal("SIGTERM");
    this.#killTimer ??= setTimeout(() => this.signal("SIGKILL"), this.#graceMs);
  }

  /** SIGKILL to the group now. */
  kill(): void {
    if (this.#exit === null) this.signal("SIGKILL");
  }

  /**
   * `terminate`, and wait for the leader's exit: at most the grace after the SIGKILL too, for a
   * process the kernel cannot end (a hung mount).
   */
  async end(): Promise<void> {
    this.terminate();
    await settledWithin(this.exited, 2 * this.#graceMs);
  }

  /**
   * End a long-lived peer politely: close its stdin (it exits on EOF), give it `exitWaitMs` to
   * exit by itself, then `end` the group, which also takes a peer that ignores EOF.
   */
  async stop(exitWaitMs: number): Promise<void> {
    this.stdin?.end();
    await settledWithin(this.exited, exitWaitMs);
    await this.end();
  }

  #fail(error: NodeJS.ErrnoException): void {
    this.#exit = { exitCode: null, signal: null, error };
    this.#onExited(this.#exit);
    this.#close();
  }

  #close(): void {
    if (this.#isClosed || this.#exit === null) return;
    this.#isClosed = true;
    clearTimeout(this.#killTimer);
    clearTimeout(this.#drainTimer);
    if (this.pid !== undefined) runningGroups.delete(this.pid);
    this.#onClosed(this.#exit);
  }
}

/**
 * SIGKILL every process group this process started and has not seen end: for an exit that
 * cannot wait for the grace (a second Ctrl-C).
 */
export function killRunningGroups(): void {
  for (const pgid of runningGroups) signalGroup(pgid, "SIGKILL");
  runningGroups.clear();
}

/** Signal a process group; false when it is gone or not ours to signal. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

function launch(options: ProcessGroupOptions): GroupLeader {
  const { command, args, cwd, env } = options;
  const found = lookUpCommand(command, env.PATH ?? "", cwd);
  if (!("path" in found)) throw spawnError(command, args, found.missing);
  return (
    options.adopt?.(found.path) ??
    (nodeChildProcess().spawn(found.path, args, {
      cwd,
      env: env as NodeJS.ProcessEnv,
      detached: true,
      shell: false,
      stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    }) as GroupLeader)
  );
}

/** The error Node's spawn gives for a command execvp could not run, in its words. */
function spawnError(
  command: string,
  args: readonly string[],
  code: "ENOENT" | "EACCES",
): NodeJS.ErrnoException {
  return Object.assign(new Error(`spawn ${command} ${code}`), {
    code,
    syscall: `spawn ${command}`,
    path: command,
    spawnargs: [...args],
  });
}

/** The pipes of a process that never started: both outputs ended, stdin taking nothing. */
function noPipes(openStdin: boolean): Pick<GroupLeader, "stdin" | "stdout" | "stderr"> {
  const { Readable, Writable } = nodeStream();
  const ended = (): Readable => {
    const stream = new Readable({ read() {} });
    stream.push(null);
    return stream;
  };
  return {
    stdin: openStdin ? new Writable({ write: (_chunk, _encoding, done) => done() }) : null,
    stdout: ended(),
    stderr: ended(),
  };
}

async function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
