import { EventEmitter } from "node:events";
import { closeSync, openSync, readSync, realpathSync } from "node:fs";
import type { Socket } from "node:net";
import { resolve } from "node:path";
import type { Readable } from "node:stream";
import { nodeNet, nodeStream } from "@united-workforce/util";

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
  unref(): void;
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
  const report = reportKey();
  const child = new WarmChild(warm, report);
  const channel = child.stdio[3];
  // The process never writes to fd 3; read it to its end so that the pipe closes.
  channel.on("error", () => {});
  channel.resume();
  channel.end(JSON.stringify({ file: script.file, args: script.args, cwd, env, report }));
  return child;
}

/**
 * A warm process as a `ChildProcess` is seen by `runAdapter`: its pid, its stdout and stderr as
 * streams, `exit` with the exit code or signal name, then `close` once the exit and every pipe
 * (fd 3 too) are through. Made when taken: from then on it keeps this process alive.
 *
 * The exit comes early when the process reports it: warm-node.cjs writes `\0uwf-exit <key>
 * <code>\n` last on stderr and on stdout once its exit code is final (`reportExit` there). With
 * both lines read, both streams are whole and the code known, ≈ 3 ms before Node and the kernel
 * have torn the process down: `exit` and `close` follow at once, the lines themselves are not
 * passed on, and this process no longer waits for it. Without them (a signal, a crash) the exit
 * is the process's own.
 */
export class WarmChild extends EventEmitter {
  readonly pid: number;
  readonly stdin = null;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** [stdin (none), stdout, stderr, fd 3]. */
  readonly stdio: [null, Readable, Readable, Socket];
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  #handle: ProcessHandle;
  #sockets: Socket[];
  /** What has yet to end before `close`: the exit, stdout, stderr, fd 3. */
  #left = new Set(["exit", "stdout", "stderr", "channel"]);
  /** The exit code each of stdout and stderr reported, by stream. */
  #reported = new Map<"stdout" | "stderr", number>();

  constructor(warm: WarmNode, reportKey: string) {
    super();
    const { Socket } = nodeNet();
    const { process: handle, pipes } = warm;
    this.#handle = handle;
    this.pid = handle.pid;
    handle.ref();
    this.#sockets = pipes.map((pipe) => {
      pipe.ref();
      // As child_process wraps a child's pipes (its `handle` option is not in Node's types).
      return new Socket({ handle: pipe, readable: true } as object);
    });
    const [out, err, channel] = this.#sockets as [Socket, Socket, Socket];
    const mark = Buffer.from(`\0uwf-exit ${reportKey} `);
    this.stdout = this.#withoutReport("stdout", out, mark);
    this.stderr = this.#withoutReport("stderr", err, mark);
    channel.on("close", () => this.#ended("channel"));
    this.stdio = [null, this.stdout, this.stderr, channel];
    handle.onexit = (exitCode, signalCode) => {
      handle.close();
      if (!this.#left.has("exit")) return;
      if (signalCode) this.signalCode = signalCode as NodeJS.Signals;
      else this.exitCode = exitCode;
      this.#exited();
    };
  }

  /**
   * `socket`'s data as a stream that ends at the exit report (`mark`, the code, a newline) or
   * with the socket. Only bytes that may begin the report are held back, so output is passed on
   * as it comes.
   */
  #withoutReport(name: "stdout" | "stderr", socket: Socket, mark: Buffer): Readable {
    const stream = new (nodeStream().Readable)({
      read() {},
      destroy(error, callback) {
        socket.destroy();
        callback(error);
      },
    });
    let held: Buffer = Buffer.alloc(0);
    let done = false;
    const end = (): void => {
      if (done) return;
      done = true;
      stream.push(null);
      this.#ended(name);
    };
    socket.on("data", (chunk: Buffer) => {
      if (done) return;
      const data = held.length > 0 ? Buffer.concat([held, chunk]) : chunk;
      const { pass, hold, code } = splitReport(data, mark);
      held = hold;
      if (pass.length > 0) stream.push(pass);
      if (code === null) return;
      this.#reported.set(name, code);
      end();
      this.#reportsIn();
    });
    socket.on("error", (error) => stream.destroy(error));
    socket.on("close", () => {
      if (done) return;
      if (held.length > 0) stream.push(held);
      end();
    });
    return stream;
  }

  /** Both streams reported the same code: the process has as good as exited. */
  #reportsIn(): void {
    const code = this.#reported.get("stdout");
    if (code === undefined || this.#reported.get("stderr") !== code) return;
    // One turn of the loop first. A signal to this process sent before the adapter ended
    // (`thread stop` signals uwf, then the adapter's group) may be read in the same poll as the
    // report, after it; it must be seen first, as it was when the exit came as SIGCHLD, through
    // the same signal pipe, behind it. Else a stopped step reads as an agent that failed.
    setImmediate(() => {
      if (!this.#left.has("exit")) return;
      this.exitCode = code;
      // What is left of it is its teardown: nothing to wait for, nothing more to read.
      this.#handle.unref();
      for (const socket of this.#sockets.slice(0, 2)) socket.destroy();
      this.#exited();
    });
  }

  #exited(): void {
    this.#left.delete("exit");
    this.emit("exit", this.exitCode, this.signalCode);
    this.#ended("exit");
  }

  #ended(what: string): void {
    this.#left.delete(what);
    if (this.#left.size === 0) this.emit("close", this.exitCode, this.signalCode);
  }
}

/**
 * `data` split at the exit report that begins with `mark`: what comes before it, to pass on;
 * what may be the report's beginning, to hold until more comes; and the report's code, once it
 * is whole. A NUL that cannot begin the report is passed on like any byte.
 */
export function splitReport(
  data: Buffer,
  mark: Buffer,
): { pass: Buffer; hold: Buffer; code: number | null } {
  const empty = data.subarray(0, 0);
  const at = data.indexOf(mark);
  if (at !== -1) {
    const rest = data.subarray(at + mark.length);
    const line = /^([0-9]{1,3})\n/.exec(rest.toString("latin1", 0, 4));
    if (line !== null && Number(line[1]) <= 255) {
      return { pass: data.subarray(0, at), hold: empty, code: Number(line[1]) };
    }
    // The code is still to come (or this is not a report: then it is passed on at the end).
    if (rest.length < 4 && /^[0-9]*$/.test(rest.toString("latin1"))) {
      return { pass: data.subarray(0, at), hold: data.subarray(at), code: null };
    }
    return { pass: data, hold: empty, code: null };
  }
  const nul = data.lastIndexOf(0);
  if (nul !== -1 && data.length - nul < mark.length) {
    const tail = data.subarray(nul);
    if (mark.subarray(0, tail.length).equals(tail)) {
      return { pass: data.subarray(0, nul), hold: tail, code: null };
    }
  }
  return { pass: data, hold: empty, code: null };
}

/**
 * 32 hex digits from the system's random source: what the exit report must carry. Read from
 * /dev/urandom (the warm start is for Linux and macOS) rather than through `node:crypto`, which
 * would cost this exec ≈ 2 ms to load.
 */
function reportKey(): string {
  const bytes = Buffer.alloc(16);
  const fd = openSync("/dev/urandom", "r");
  try {
    readSync(fd, bytes, 0, bytes.length, null);
  } finally {
    closeSync(fd);
  }
  return bytes.toString("hex");
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
