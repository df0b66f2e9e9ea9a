import { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import type { Readable } from "node:stream";
import { nodeNet, nodeStream } from "@united-workforce/util";

/** A warm process's handles as the bin left them: the process and its pipes, not read yet. */
export interface WarmHandles {
  process: ProcessHandle;
  /** Its stdout, its stderr, and fd 3, the channel the step is sent on: not read yet. */
  pipes: [PipeHandle, PipeHandle, PipeHandle];
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

  constructor(warm: WarmHandles, reportKey: string) {
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
