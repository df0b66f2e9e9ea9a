import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (this file is `packages/test-utils/{src,dist}/run.*`). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const UWF_BIN = join(REPO_ROOT, "packages/cli/bin/uwf.cjs");
export const UWF_MOCK_BIN = join(REPO_ROOT, "packages/agent-mock/bin/uwf-mock.cjs");

export interface RunOptions {
  cwd?: string;
  /** Added to (and overriding) the inherited environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed. */
  input?: string;
  /** Kill the process (its whole group) after this long; default 30 s. */
  timeoutMs?: number;
}

export interface RunResult {
  /** The exit code, or null when killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** A binary started in the background: its output so far, and its result when it ends. */
export interface StartedProcess {
  child: ChildProcessWithoutNullStreams;
  pid: number;
  stdout(): string;
  stderr(): string;
  done: Promise<RunResult>;
}

/**
 * Start a binary in its own process group. `.js`/`.mjs` files run with this Node. The
 * repository's `node_modules/.bin` goes first on PATH, so `uwf-mock` resolves as it does after
 * install, and no UWF_* variable leaks in from the developer's shell. After `timeoutMs`
 * (default 30 s) the whole group is killed and the result says `timedOut`.
 */
export function startBin(path: string, args: string[], options: RunOptions = {}): StartedProcess {
  const isScript = /\.[cm]?js$/.test(path);
  const command = isScript ? process.execPath : path;
  const argv = isScript ? [path, ...args] : args;
  const env: Record<string, string | undefined> = {};
  // NODE_PATH (set by `pnpm exec`) would let a bundle load a package it does not declare.
  for (const [name, value] of Object.entries(process.env))
    if (!name.startsWith("UWF_") && name !== "NODE_PATH") env[name] = value;
  env.PATH = [join(REPO_ROOT, "node_modules/.bin"), process.env.PATH ?? ""].join(delimiter);
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  const child = spawn(command, argv, {
    cwd: options.cwd ?? REPO_ROOT,
    env: env as NodeJS.ProcessEnv,
    stdio: ["pipe", "pipe", "pipe"],
    detached: process.platform !== "win32",
  });
  let stdout = "";
  let stderr = "";
  let timedOut = false;
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const done = new Promise<RunResult>((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs ?? 30_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr, timedOut });
    });
  });
  child.stdin.on("error", () => {
    // The child may exit without reading its input.
  });
  child.stdin.end(options.input ?? "");
  return { child, pid: child.pid ?? 0, stdout: () => stdout, stderr: () => stderr, done };
}

/** Run a binary to completion (see `startBin`). */
export function runBin(path: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return startBin(path, args, options).done;
}

/** Start the `uwf` CLI with UWF_HOME and HOME set to `home`, so nothing touches `~`. */
export function startUwf(args: string[], options: RunOptions & { home: string }): StartedProcess {
  const { home, env, ...rest } = options;
  return startBin(UWF_BIN, args, { ...rest, env: { UWF_HOME: home, HOME: home, ...env } });
}

/** Run the `uwf` CLI with UWF_HOME and HOME set to `home`, so nothing touches `~`. */
export function runUwf(args: string[], options: RunOptions & { home: string }): Promise<RunResult> {
  return startUwf(args, options).done;
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}
