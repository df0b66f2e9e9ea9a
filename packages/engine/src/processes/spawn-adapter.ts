import { statSync } from "node:fs";
import {
  envSecretMasker,
  findExecutable,
  KILL_GRACE,
  maskUrlPasswords,
  runProcessGroup,
  sanitizeTerminalText,
  UwfError,
} from "@united-workforce/util";
import { takeWarmNode } from "./warm-node.js";

// Resolving a command is util's; the engine's callers take it from here.

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
  onSpawn(pid: number): unknown;
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
const RESULT_LINE = /^\s*\{/;
const NOT_BLANK = /\S/;

/**
 * Run an adapter with no shell, in its own process group (util's spawner, with the step's
 * grace), and wait for it. Only the last stdout line is kept (bounded), so an adapter printing
 * 50 MB costs no memory.
 */
export async function runAdapter(invocation: AdapterInvocation): Promise<AdapterOutcome> {
  checkCwd(invocation.cwd);
  // Names this process to the adapter, which stops by itself once it has ended (agent-kit).
  const env: Record<string, string | undefined> = {
    ...invocation.env,
    UWF_ADAPTER_PARENT_PID: String(process.pid),
  };
  let lastLine = "";
  let resultLineSeen = invocation.onResultLine === undefined;
  const takeStdoutLine = (line: string): void => {
    if (!resultLineSeen && RESULT_LINE.test(line)) {
      resultLineSeen = true;
      invocation.onResultLine?.(line.trim().slice(0, LAST_LINE_LIMIT));
    }
    if (NOT_BLANK.test(line)) lastLine = line;
  };
  // Stderr is passed on in whole lines, so a read boundary never splits a line for the user
  // (nor a secret for the mask). What a secret-named variable of its environment holds, and
  // the password of any URL, is masked in what the user sees, the logs and the failure reason
  // keep: it reaches no terminal.
  const maskEnvSecrets = envSecretMasker(invocation.env);
  let stderrTail = "";
  const takeStderr = (text: string): void => {
    const masked = maskUrlPasswords(maskEnvSecrets(text));
    stderrTail = (stderrTail + masked).slice(-STDERR_TAIL);
    // An adapter's escape sequences must not reach the user's terminal (a forged prompt,
    // a cleared screen, a rewritten title or clipboard).
    invocation.onStderr(sanitizeTerminalText(masked));
  };

  const outcome = await runProcessGroup({
    command: invocation.command,
    args: invocation.args,
    cwd: invocation.cwd,
    env,
    stdin: invocation.stdin === undefined ? undefined : { text: invocation.stdin },
    graceMs: KILL_GRACE.step,
    // A Node adapter with nothing on stdin runs in the Node process the bin started early.
    adopt:
      invocation.stdin === undefined
        ? (program) =>
            takeWarmNode(program, invocation.args, invocation.cwd, env, (command) =>
              findExecutable(command, env.PATH ?? "", invocation.cwd),
            )
        : undefined,
    timeoutMs: invocation.timeoutMs,
    signal: invocation.signal,
    // Recorded before anything else can happen: an exec killed from here on leaves a lock
    // that names the adapter's group, so the next exec's takeover can end it.
    onSpawn: invocation.onSpawn,
    stdout: {
      onLine: takeStdoutLine,
      maxLineChars: LAST_LINE_LIMIT,
      tailChars: invocation.keepStdout ?? 0,
    },
    stderr: { onWholeLines: takeStderr, maxLineChars: LAST_LINE_LIMIT },
    notFoundHint:
      "Fix the agent's `command` under `agents:` in $UWF_HOME/config.yaml, or pass --agent.",
    tooLargeHint:
      "Edge prompts already go through stdin when long; shorten the agent's `args` or `env` in config.yaml, or the environment uwf runs with.",
  });
  return {
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    timedOut: outcome.timedOut,
    aborted: outcome.aborted,
    lastLine: lastLine.slice(0, LAST_LINE_LIMIT).trim(),
    stdoutBytes: outcome.stdout.bytes,
    stderrTail,
    stdout: outcome.stdout.tail,
    stdoutTruncated: outcome.stdout.truncated,
  };
}

/**
 * SIGKILL every adapter group this process started and has not seen end: for an exit that
 * cannot wait for the normal SIGTERM-then-SIGKILL (a second Ctrl-C).
 */

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
