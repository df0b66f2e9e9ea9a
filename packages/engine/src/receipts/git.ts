/**
 * git as receipts run it: one argv per call, no shell, a bounded time, its own environment.
 * A receipt is a record of what a step did, never a reason for the step to fail, so every
 * failure here is a `GitFailure` that says what went wrong, for a warning.
 */
import { nodeChildProcess } from "@united-workforce/util";

/** How long one git call may take: `git add -A` hashes every changed file of the tree. */
export const GIT_TIMEOUT_MS = 60_000;

/** Far above the numstat of any real diff; a longer output is a failure, not a truncation. */
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

export type GitEnv = Record<string, string | undefined>;

/** git ran and failed, timed out, or could not start. */
export class GitFailure extends Error {
  constructor(
    message: string,
    /** git is not installed: nothing can be said about any directory. */
    readonly notInstalled = false,
    /** git's exit code (null when it did not exit by itself). */
    readonly exitCode: number | null = null,
  ) {
    super(message);
  }
}

export interface GitCall {
  cwd: string;
  env: GitEnv;
  timeoutMs?: number;
  /** Variables for this call only (a temporary index). */
  extraEnv?: Record<string, string>;
  /** What git reads on stdin (`cat-file --batch-check`); nothing when absent. */
  input?: string;
}

/** Run `git <args>` in `call.cwd`; its stdout, or a `GitFailure`. */
export function runGit(args: readonly string[], call: GitCall): Promise<string> {
  const env: GitEnv = {
    ...call.env,
    // Never ask on a terminal; never take a lock a reader does not need.
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    ...call.extraEnv,
  };
  // An index or repository chosen by whoever ran uwf (a git hook) is not the step's tree's.
  if (call.extraEnv?.GIT_INDEX_FILE === undefined) delete env.GIT_INDEX_FILE;
  delete env.GIT_DIR;
  delete env.GIT_WORK_TREE;
  return new Promise((resolve, reject) => {
    const child = nodeChildProcess().execFile(
      "git",
      // A repository's fsmonitor hook is a command: reading its tree must run nothing of its.
      ["-c", "core.fsmonitor=false", ...args],
      {
        cwd: call.cwd,
        env: env as NodeJS.ProcessEnv,
        encoding: "utf8",
        timeout: call.timeoutMs ?? GIT_TIMEOUT_MS,
        maxBuffer: MAX_OUTPUT_BYTES,
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        if (error === null) {
          resolve(stdout);
          return;
        }
        const failed = error as NodeJS.ErrnoException & {
          code?: string | number;
          killed?: boolean;
        };
        const what = `git ${args.slice(0, 2).join(" ")}`;
        if (failed.code === "ENOENT") {
          reject(new GitFailure("git was not found in PATH", true));
        } else if (failed.killed) {
          reject(
            new GitFailure(
              `${what} took longer than ${(call.timeoutMs ?? GIT_TIMEOUT_MS) / 1000} s and was stopped`,
            ),
          );
        } else {
          const said = stderr.trim().split("\n").slice(-3).join(" ");
          const code = typeof failed.code === "number" ? failed.code : null;
          reject(
            new GitFailure(
              `${what} failed in "${call.cwd}": ${said || failed.message}`,
              false,
              code,
            ),
          );
        }
      },
    );
    // A git that exits before reading it all closes the pipe: its exit code says why.
    child.stdin?.on("error", () => {});
    child.stdin?.end(call.input ?? "");
  });
}
