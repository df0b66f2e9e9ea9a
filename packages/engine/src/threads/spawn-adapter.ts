import type { ChildProcessByStdio } from "node:child_process";
import type { EventEmitter } from "node:events";
import { statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import {
  envSecretMasker,
  errorMessage,
  maskUrlPasswords,
  nodeChildProcess,
  sanitizeTerminalText,
  shellQuote,
  UwfError,
} from "@united-workforce/util";
import { takeWarmNode } from "./warm-node.js";

/**
 * What `runAdapter` uses of an adapter's process: a spawned `ChildProcess`, or the warm process
 * the bin started (`WarmChild`), which emits the same `exit` and `close`.
 */
type AdapterProcess = EventEmitter &
  Pick<
    ChildProcessByStdio<Writable | null, Readable, Readable>,
    "pid" | "stdin" | "stdout" | "stderr"
  >;

export interface AdapterInvocation {
  command: string;
  args: string[];
  /** Written to the adapter's stdin, which is then closed; without it stdin is /dev/null. */
  stdin?: string;
  cwd: string;
  env: Record<string, string | undefined>;
  timeoutMs: number | null;
  signal: AbortSignal;
  /** Adapter stderr, streamed as it arrives, in whole lines (the last one may lack its "\n"). */
  onStderr(chunk: string): void;
  /** Called once the child exists, so the lock can record its process group. */
  onSpawn(pid: number): void;
  /** Keep up to this many characters of stdout (its end) in `stdout`; a script step's result. */
  keepStdout?: number;
  /**
   * Called once, with the first whole stdout line that looks like a result line (a JSON object),
   * as soon as it arrives: the adapter is still ending (≈ 4 ms for a Node process), and the caller
   * can check the step meanwhile. What counts is still the outcome's `lastLine`, after the exit.
   */
  onResultLine?(line: string): void;
}

export interface AdapterOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** The last non-empty stdout line: the protocol's result line. */
  lastLine: string;
  stdoutBytes: number;
  stderrTail: string;
  /** The end of stdout, when `keepStdout` asked for it ("" otherwise). */
  stdout: string;
  /** True when stdout was longer than `keepStdout`, so `stdout` is only its end. */
  stdoutTruncated: boolean;
}

const STDERR_TAIL = 4000;
const LAST_LINE_LIMIT = 64 * 1024;
const KILL_GRACE_MS = 2000;
/** setTimeout fires at once for a longer delay (or Infinity): longer timeouts wait this long. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Run an adapter with no shell, in its own process group, and wait for it. Only the last
 * stdout line is kept (bounded), so an adapter printing 50 MB costs no memory.
 */
export async function runAdapter(invocation: AdapterInvocation): Promise<AdapterOutcome> {
  checkCwd(invocation.cwd);
  const resolved = findExecutable(invocation.command, invocation.env.PATH ?? "", invocation.cwd);
  if (!resolved) {
    throw new UwfError("AGENT_FAILED", commandNotFound(invocation.command, invocation.cwd), {
      hint: "Fix the agent's `command` under `agents:` in $UWF_HOME/config.yaml, or pass --agent.",
    });
  }

  // Names this process to the adapter, which stops by itself once it has ended (agent-kit).
  const env: Record<string, string | undefined> = {
    ...invocation.env,
    UWF_ADAPTER_PARENT_PID: String(process.pid),
  };
  let child: AdapterProcess;
  try {
    // A Node adapter with nothing on stdin runs in the Node process the bin started early.
    const warm =
      invocation.stdin === undefined
        ? takeWarmNode(resolved, invocation.args, invocation.cwd, env, (command) =>
            findExecutable(command, env.PATH ?? "", invocation.cwd),
          )
        : null;
    child =
      warm ??
      (nodeChildProcess().spawn(resolved, invocation.args, {
        cwd: invocation.cwd,
        env: env as NodeJS.ProcessEnv,
        detached: true,
        shell: false,
        stdio: [invocation.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      }) as ChildProcessByStdio<Writable | null, Readable, Readable>);
  } catch (error) {
    throw startFailure(invocation, error);
  }
  if (child.stdin && invocation.stdin !== undefined) {
    // An adapter that exits without reading all of it (a usage error) closes the pipe: its
    // exit code tells what happened, the EPIPE adds nothing.
    child.stdin.on("error", () => {});
    child.stdin.end(invocation.stdin);
  }

  if (child.pid !== undefined) runningGroups.add(child.pid);
  const killGroup = (sig: NodeJS.Signals): void => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, sig);
    } catch {
      // The group is already gone.
    }
  };
  // Record the child before anything else can happen: an exec killed from here on leaves a
  // lock that names the adapter's group, so the next exec's takeover can end it.
  if (child.pid !== undefined) {
    try {
      invocation.onSpawn(child.pid);
    } catch (error) {
      killGroup("SIGKILL");
      throw error;
    }
  }

  return await new Promise<AdapterOutcome>((resolvePromise, reject) => {
    const stdoutDecoder = new StringDecoder("utf8");
    const stderrDecoder = new StringDecoder("utf8");
    let pending = "";
    let lastLine = "";
    let stdoutBytes = 0;
    const keep = invocation.keepStdout ?? 0;
    let stdout = "";
    let stdoutTruncated = false;
    let resultLineSeen = false;
    let stderrTail = "";
    let timedOut = false;
    let aborted = false;
    let exited: { exitCode: number | null; signal: NodeJS.Signals | null } | null = null;
    let killTimer: NodeJS.Timeout | undefined;
    let timeoutTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    const terminate = (): void => {
      killGroup("SIGTERM");
      killTimer ??= setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS);
    };
    const onAbort = (): void => {
      aborted = true;
      terminate();
    };
    const cleanup = (): void => {
      if (child.pid !== undefined) runningGroups.delete(child.pid);
      clearTimeout(timeoutTimer);
      clearTimeout(killTimer);
      clearTimeout(drainTimer);
      invocation.signal.removeEventListener("abort", onAbort);
    };

    if (invocation.timeoutMs !== null) {
      timeoutTimer = setTimeout(
        () => {
          timedOut = true;
          terminate();
        },
        Math.min(invocation.timeoutMs, MAX_TIMER_MS),
      );
    }
    if (invocation.signal.aborted) onAbort();
    invocation.signal.addEventListener("abort", onAbort, { once: true });

    const takeStdout = (text: string): void => {
      if (keep > 0 && text !== "") {
        stdout += text;
        if (stdout.length > keep) {
          stdout = stdout.slice(-keep);
          stdoutTruncated = true;
        }
      }
      pending += text;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      if (!resultLineSeen && invocation.onResultLine !== undefined) {
        const candidate = lines.find((line) => line.trimStart().startsWith("{"));
        if (candidate !== undefined) {
          resultLineSeen = true;
          invocation.onResultLine(candidate.trim().slice(0, LAST_LINE_LIMIT));
        }
      }
      for (let i = lines.length - 1; i >= 0; i--) {
        if (lines[i]!.trim() !== "") {
          lastLine = lines[i]!.slice(0, LAST_LINE_LIMIT);
          break;
        }
      }
      if (pending.length > LAST_LINE_LIMIT) pending = pending.slice(-LAST_LINE_LIMIT);
    };
    // Stderr is passed on in whole lines, so a read boundary never splits a line for the user
    // (nor a secret for the mask); a line longer than the limit is passed on in pieces rather
    // than held without bound. What a secret-named variable of its environment holds, and the
    // password of any URL, is masked in what the user sees, the logs and the failure reason
    // keep: it reaches no terminal.
    const maskEnvSecrets = envSecretMasker(invocation.env);
    const mask = (text: string): string => maskUrlPasswords(maskEnvSecrets(text));
    let stderrLine = "";
    const takeStderr = (text: string, flush = false): void => {
      stderrLine += text;
      const end =
        flush || stderrLine.length > LAST_LINE_LIMIT
          ? stderrLine.length
          : stderrLine.lastIndexOf("\n") + 1;
      if (end === 0) return;
      const lines = mask(stderrLine.slice(0, end));
      stderrLine = stderrLine.slice(end);
      stderrTail = (stderrTail + lines).slice(-STDERR_TAIL);
      // An adapter's escape sequences must not reach the user's terminal (a forged prompt,
      // a cleared screen, a rewritten title or clipboard).
      invocation.onStderr(sanitizeTerminalText(lines));
    };
    // Decoders keep a multi-byte character split across two reads whole.
    child.stdout.on("data", (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      takeStdout(stdoutDecoder.write(chunk));
    });
    child.stderr.on("data", (chunk: Buffer) => takeStderr(stderrDecoder.write(chunk)));

    let settled = false;
    const finish = (): void => {
      if (!exited || settled) return;
      settled = true;
      cleanup();
      takeStdout(stdoutDecoder.end());
      takeStderr(stderrDecoder.end(), true);
      if (pending.trim() !== "") lastLine = pending.slice(0, LAST_LINE_LIMIT);
      resolvePromise({
        ...exited,
        timedOut,
        aborted,
        lastLine: lastLine.trim(),
        stdoutBytes,
        stderrTail,
        stdout,
        stdoutTruncated,
      });
    };
    child.once("error", (error: Error) => {
      if (settled) return;
      settled = true;
      cleanup();
      killGroup("SIGKILL");
      reject(startFailure(invocation, error));
    });
    child.once("exit", (exitCode: number | null, signal: NodeJS.Signals | null) => {
      exited = { exitCode, signal };
      // The step ends with the adapter: children it left in its group must not outlive it, nor
      // keep its pipes open and this exec waiting.
      killGroup("SIGKILL");
      // A process that left the group may still hold the pipes: stop reading after a grace.
      drainTimer = setTimeout(() => {
        child.stdin?.destroy();
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, KILL_GRACE_MS);
    });
    child.once("close", finish);
  });
}

/** Process groups of the adapters this process is running right now. */
const runningGroups = new Set<number>();

/**
 * SIGKILL every adapter group this process started and has not seen end: for an exit that
 * cannot wait for the normal SIGTERM-then-SIGKILL (a second Ctrl-C).
 */
export function killRunningAdapters(): void {
  for (const pgid of runningGroups) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  runningGroups.clear();
}

/** Linux's limit on one argument or environment string (MAX_ARG_STRLEN). */
const MAX_ARG_BYTES = 128 * 1024;

function startFailure(invocation: AdapterInvocation, error: unknown): UwfError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "E2BIG") {
    const sizes = [
      ...invocation.args,
      ...Object.entries(invocation.env).map(([name, value]) => `${name}=${value ?? ""}`),
    ].map((text) => Buffer.byteLength(text));
    const longest = Math.max(...sizes);
    const total = sizes.reduce((sum, size) => sum + size, 0);
    return new UwfError(
      "AGENT_FAILED",
      `could not start "${invocation.command}": its arguments and environment are too large for the operating system (${total} bytes in all, the longest string ${longest} bytes; Linux allows ${MAX_ARG_BYTES} per string)`,
      {
        hint: "Edge prompts already go through stdin when long; shorten the agent's `args` or `env` in config.yaml, or the environment uwf runs with.",
      },
    );
  }
  return new UwfError(
    "AGENT_FAILED",
    `could not start "${invocation.command}": ${errorMessage(error)}`,
  );
}

function checkCwd(cwd: string): void {
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) {
    throw new UwfError(
      "AGENT_FAILED",
      `working directory "${cwd}" does not exist or is not a directory`,
      {
        hint: "Create it, or fix the edge's `location` / the thread's --cwd.",
      },
    );
  }
}

/**
 * Why `findExecutable` found nothing, and what to run to see: a bare name was looked up on PATH;
 * a path names one file, a relative one from `cwd` (for an agent, the thread's cwd).
 */
export function commandNotFound(command: string, cwd: string): string {
  if (!command.includes("/")) {
    return `"${command}" not found in PATH. Install it or check your PATH config. Run: which ${shellQuote(command)}`;
  }
  if (isAbsolute(command)) return `"${command}" not found or not executable`;
  return `"${command}" not found or not executable in ${cwd} (a relative command is read from the directory it runs in; give an absolute path to run it from anywhere)`;
}

/** Resolve a command the way execvp would, without a shell. */
export function findExecutable(command: string, pathEnv: string, cwd: string): string | null {
  if (command.includes("/")) {
    const full = isAbsolute(command) ? command : join(cwd, command);
    return isExecutableFile(full) ? full : null;
  }
  for (const dir of pathEnv.split(delimiter)) {
    if (!dir) continue;
    const full = join(dir, command);
    if (isExecutableFile(full)) return full;
  }
  return null;
}

function isExecutableFile(path: string): boolean {
  try {
    const stat = statSync(path);
    return stat.isFile() && (stat.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}
