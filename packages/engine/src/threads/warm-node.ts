import { EventEmitter } from "node:events";
import { closeSync, openSync, readSync, realpathSync } from "node:fs";
import type { Socket } from "node:net";
import { resolve } from "node:path";
import type { Readable } from "node:stream";
import { nodeNet } from "@united-workforce/util";

/**
 * A Node process started before its program was known (the `uwf` bin starts one for `thread
 * exec`, `resume`, `poke` and `workflow test`: `bin/warm-start.cjs` spawns `bin/warm-node.cjs`),
 * waiting on fd 3 for the script to run. Its Node start then overlaps this process's own
 * instead of following it (DESIGN §14). The bin spawns it through Node's `process_wrap`
 * binding, so what it leaves are that binding's handles, not a `ChildProcess`.
 */
export interface WarmNode {
  process: ProcessHandle;
  /** Its stdout, its stderr, and fd 3, the channel the step is sent on: not read yet. */
  pipes: [PipeHandle, PipeHandle, PipeHandle];
  /** Set when it ended before anything took it. */
  exited: boolean;
  /** The environment it was started with: what Node read as it started. */
  env: NodeJS.ProcessEnv;
  /** Start another into the slot (the bin's own function), for the run's next step. */
  restart?(): void;
}

/** What the engine uses of a `process_wrap` `Process` handle. */
export interface ProcessHandle {
  readonly pid: number;
  /** Called once, when the process has ended: its exit code, or the name of its signal. */
  onexit: (exitCode: number, signalCode: string) => void;
  ref(): void;
  close(): void;
}

/** What the engine uses of a `pipe_wrap` `Pipe` handle (a net.Socket takes the rest). */
export interface PipeHandle {
  ref(): void;
}

/** Where the bin leaves its warm process; a global, because the bin runs before any module. */
const SLOT = Symbol.for("@united-workforce/warm-node");

type Slot = { [SLOT]?: WarmNode };

/** Whether the run may spawn another program after the one that takes the warm process. */
let moreToCome = false;

/**
 * Say whether the run may spawn another program after the next one (`runSteps`: more steps
 * allowed). While it may, taking the warm process starts the next one, which then starts while
 * this step's program runs instead of after it.
 */
export function keepWarmNode(more: boolean): void {
  moreToCome = more;
}

/**
 * Environment variables Node reads as it starts (its `NODE_*` but the applications' NODE_ENV,
 * libuv's, OpenSSL's, the locale ICU takes): a warm process cannot take a change later.
 */
const READ_AT_START = /^(?:NODE_(?!ENV$)|UV_|OPENSSL_|SSL_CERT_|LC_)|^(?:LANG|LANGUAGE|TZ)$/;

/**
 * The warm process, now running `program args` in `cwd` with `env` as a spawn would, or null
 * when there is none or it cannot be this program: not a Node script run by this Node, an
 * environment Node would have started differently with, or a process that has ended. Taken
 * once: whatever this returns null for is spawned as usual.
 */
export function takeWarmNode(
  program: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string | undefined>,
  which: (command: string) => string | null,
): WarmChild | null {
  const slot = globalThis as Slot;
  const warm = slot[SLOT];
  if (warm === undefined || warm.exited || !sameStartEnvironment(warm.env, env)) return null;
  const script = nodeScript(program, args, cwd, which);
  if (script === null) return null;

  delete slot[SLOT];
  if (moreToCome) warm.restart?.();
  const child = new WarmChild(warm);
  const channel = child.stdio[3];
  // The process never writes to fd 3; read it to its end so that the pipe closes.
  channel.on("error", () => {});
  channel.resume();
  channel.end(JSON.stringify({ file: script.file, args: script.args, cwd, env }));
  return child;
}

/**
 * A warm process as a `ChildProcess` is seen by `runAdapter`: its pid, its stdout and stderr as
 * streams, `exit` with the exit code or signal name, then `close` once the exit and every pipe
 * (fd 3 too) are through. Made when taken: from then on it keeps this process alive.
 */
export class WarmChild extends EventEmitter {
  readonly pid: number;
  readonly stdin = null;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** [stdin (none), stdout, stderr, fd 3]. */
  readonly stdio: [null, Socket, Socket, Socket];
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  #closesLeft = 4;

  constructor(warm: WarmNode) {
    super();
    const { Socket } = nodeNet();
    const { process: handle, pipes } = warm;
    this.pid = handle.pid;
    handle.ref();
    const sockets = pipes.map((pipe) => {
      pipe.ref();
      // As child_process wraps a child's pipes (its `handle` option is not in Node's types).
      const socket = new Socket({ handle: pipe, readable: true } as object);
      socket.on("close", () => this.#closed());
      return socket;
    });
    this.stdio = [null, sockets[0] as Socket, sockets[1] as Socket, sockets[2] as Socket];
    this.stdout = this.stdio[1];
    this.stderr = this.stdio[2];
    handle.onexit = (exitCode, signalCode) => {
      if (signalCode) this.signalCode = signalCode as NodeJS.Signals;
      else this.exitCode = exitCode;
      handle.close();
      this.emit("exit", this.exitCode, this.signalCode);
      this.#closed();
    };
  }

  #closed(): void {
    if (--this.#closesLeft === 0) this.emit("close", this.exitCode, this.signalCode);
  }
}

function sameStartEnvironment(
  started: NodeJS.ProcessEnv,
  wanted: Record<string, string | undefined>,
): boolean {
  for (const name of Object.keys(started)) {
    if (READ_AT_START.test(name) && started[name] !== wanted[name]) return false;
  }
  for (const name of Object.keys(wanted)) {
    if (READ_AT_START.test(name) && started[name] !== wanted[name]) return false;
  }
  return true;
}

/**
 * The script and its arguments when `program args` runs a Node script with this process's Node:
 * `node <script> …` (no Node options before the script), or a script whose `#!` line is
 * `/usr/bin/env node` (`which` finds the first `node` on the adapter's PATH) or this Node's path.
 */
export function nodeScript(
  program: string,
  args: readonly string[],
  cwd: string,
  which: (command: string) => string | null,
): { file: string; args: string[] } | null {
  if (isThisNode(program)) {
    const [script, ...rest] = args;
    if (script === undefined || script.startsWith("-")) return null;
    return { file: resolve(cwd, script), args: rest };
  }
  const interpreter = shebang(program);
  if (interpreter === null) return null;
  const [command = "", argument, extra] = interpreter;
  let node: string | null = null;
  if (command.endsWith("/env") && argument === "node" && extra === undefined) {
    node = which("node");
  } else if (argument === undefined) {
    node = command;
  }
  return node !== null && isThisNode(node) ? { file: program, args: [...args] } : null;
}

let thisNode: string | undefined;

function isThisNode(path: string): boolean {
  thisNode ??= realpathSync(process.execPath);
  try {
    return realpathSync(path) === thisNode;
  } catch {
    return false;
  }
}

/** The words of a file's `#!` line, or null when it has none. */
function shebang(path: string): string[] | null {
  let head: string;
  try {
    const fd = openSync(path, "r");
    try {
      const buffer = Buffer.alloc(256);
      head = buffer.toString("latin1", 0, readSync(fd, buffer, 0, buffer.length, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
  const end = head.indexOf("\n");
  if (!head.startsWith("#!") || end === -1) return null;
  const words = head
    .slice(2, end)
    .trim()
    .split(/[ \t]+/);
  return words[0] ? words : null;
}
