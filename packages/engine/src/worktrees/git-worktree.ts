/**
 * A git worktree per thread (`worktree: true`, `thread start --worktree`): the thread gets its
 * own checkout on its own branch, made from the repository holding the directory it was
 * started in, so its roles can edit, build and commit without touching the user's checkout or
 * another thread's. git runs without a shell, one argv per call.
 */
import { existsSync, mkdirSync, realpathSync } from "node:fs";
import { basename, isAbsolute, join, normalize, relative, resolve, sep } from "node:path";
import type { ThreadWorktree } from "@united-workforce/protocol";
import { nodeChildProcess, UwfError } from "@united-workforce/util";

export type GitEnv = Record<string, string | undefined>;

/** Where worktrees go and how git is run: `dir` is config.yaml's `worktrees.dir`. */
export interface WorktreePlace {
  home: string;
  dir?: string;
  env: GitEnv;
}

/** The branch a thread's worktree checks out. */
export function worktreeBranch(thread: string): string {
  return `uwf/${thread}`;
}

/** The folder a thread's worktree is made in (it must not exist yet). */
export function worktreePath(place: WorktreePlace, repo: string, thread: string): string {
  const dir =
    place.dir === undefined
      ? join(place.home, "worktrees", basename(repo))
      : resolve(repo, place.dir);
  return join(dir, thread);
}

/**
 * The repository holding `cwd`: its top folder and where `cwd` sits inside it ("" at the top).
 * A linked worktree counts as its own top folder.
 */
export function repositoryOf(cwd: string, env: GitEnv): { top: string; subdir: string } {
  const real = realpathSync(cwd);
  const top = git(["rev-parse", "--show-toplevel"], real, env, {
    failure: () =>
      new UwfError("WORKTREE_FAILED", `"${cwd}" is not inside a git repository`, {
        hint: "A thread with a worktree is made from the repository holding its cwd: run `git init` there (and commit once), pass --cwd inside a repository, or start it with --no-worktree.",
      }),
  });
  return { top, subdir: relative(top, real) };
}

/**
 * Make a new thread's worktree: branch `uwf/<thread>` from the repository's HEAD commit.
 * Returns the worktree and the thread's cwd in it (the same place relative to the top folder).
 * Uncommitted changes of the checkout are not carried over: the worktree starts from a commit.
 */
export function createThreadWorktree(
  place: WorktreePlace,
  cwd: string,
  thread: string,
): { worktree: ThreadWorktree; cwd: string } {
  const { top, subdir } = repositoryOf(cwd, place.env);
  const base = git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], top, place.env, {
    failure: () =>
      new UwfError("WORKTREE_FAILED", `the repository "${top}" has no commit yet`, {
        hint: "A worktree starts from a commit: commit once (git commit --allow-empty -m init), then start the thread again.",
      }),
  });
  return addWorktree(place, { repo: top, base, thread, subdir });
}

/**
 * Make a fork's worktree: its own branch `uwf/<fork>`, from the head of the branch of the
 * thread it was forked from (its base commit when that branch is gone), at the same place
 * relative to the top folder as the parent's cwd. The parent's uncommitted changes stay there.
 */
export function forkThreadWorktree(
  place: WorktreePlace,
  parent: ThreadWorktree,
  parentCwd: string,
  thread: string,
): { worktree: ThreadWorktree; cwd: string } {
  let base: string;
  try {
    base = git(
      ["rev-parse", "--verify", "--quiet", `refs/heads/${parent.branch}^{commit}`],
      parent.repo,
      place.env,
    );
  } catch (error) {
    if (error instanceof UwfError && error.message.startsWith("git was not found")) throw error;
    base = parent.base;
  }
  const subdir = relative(parent.path, parentCwd);
  const inside = subdir === "" || (!subdir.startsWith("..") && !isAbsolute(subdir));
  return addWorktree(place, {
    repo: parent.repo,
    base,
    thread,
    subdir: inside ? subdir : "",
  });
}

/**
 * A fan-out child's worktree (its workflow says `worktree: true`): branch `uwf/<child>` from
 * the HEAD commit of the checkout holding the parent's cwd (the parent's own worktree when it
 * has one), with the child's cwd (`childCwd`: the parent's cwd joined with the item's
 * `location`) at the same place inside it. Create-if-absent, as the child's pointer is: a
 * crash after the worktree was made and before the child's pointer was written left a worktree
 * (or a branch) nothing ran in yet, which is found by its derived path and branch and reused.
 */
export function ensureChildWorktree(
  place: WorktreePlace,
  parent: { cwd: string; worktree?: ThreadWorktree | undefined },
  childCwd: string,
  thread: string,
): { worktree: ThreadWorktree; cwd: string } {
  const { top, repo, subdir } = childWorktreeSource(place, parent, childCwd);
  const path = worktreePath(place, repo, thread);
  const branch = worktreeBranch(thread);
  if (!existsSync(path)) {
    const head = branchHead(repo, branch, place.env);
    if (head === null) {
      const base = git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], top, place.env, {
        failure: () =>
          new UwfError("WORKTREE_FAILED", `the repository "${top}" has no commit yet`, {
            hint: "A worktree starts from a commit: commit once (git commit --allow-empty -m init), then run the fan-out again.",
          }),
      });
      return addWorktree(place, { repo, base, thread, subdir });
    }
    // The branch was made, its folder not (or removed by hand): check the branch out again.
    git(["worktree", "prune"], repo, place.env);
    git(["worktree", "add", "--quiet", path, branch], repo, place.env);
    return reused(path, branch, repo, head, subdir);
  }
  let checkedOut = "";
  try {
    checkedOut = git(["rev-parse", "--abbrev-ref", "HEAD"], path, place.env);
  } catch {
    checkedOut = "";
  }
  const head = branchHead(repo, branch, place.env);
  if (checkedOut !== branch || head === null) {
    throw new UwfError(
      "WORKTREE_FAILED",
      `the worktree folder "${path}" already exists and is not the worktree of branch ${branch}`,
      {
        hint: "Remove it or choose another folder with `uwf config set worktrees.dir <dir>`, then run the fan-out again.",
      },
    );
  }
  // Nothing ran in it yet: finish a checkout a crash may have cut short.
  git(["reset", "--hard", "--quiet"], path, place.env);
  return reused(path, branch, repo, head, subdir);
}

/**
 * Where a child's worktree comes from: the checkout holding the parent's cwd (`top`), the
 * repository its worktrees belong to, and the child's cwd inside it ("" for its top).
 */
function childWorktreeSource(
  place: WorktreePlace,
  parent: { cwd: string; worktree?: ThreadWorktree | undefined },
  childCwd: string,
): { top: string; repo: string; subdir: string } {
  let top: string;
  let repo: string;
  let parentSubdir: string;
  const own = parent.worktree;
  if (own !== undefined && isInside(own.path, parent.cwd)) {
    // Children of a thread with a worktree branch from its branch; their worktrees belong to the
    // main repository, so they outlive the parent's worktree.
    top = own.path;
    repo = own.repo;
    parentSubdir = relative(own.path, parent.cwd);
  } else {
    const found = repositoryOf(parent.cwd, place.env);
    top = found.top;
    repo = found.top;
    parentSubdir = found.subdir;
  }
  const subdir = normalize(join(parentSubdir, relative(parent.cwd, childCwd)));
  if (subdir === ".." || subdir.startsWith(`..${sep}`) || isAbsolute(subdir)) {
    throw new UwfError(
      "WORKTREE_FAILED",
      `the child's folder "${childCwd}" lies outside the repository "${top}" its worktree is made from`,
      {
        hint: "A child with its own worktree runs inside it: make the fan-out's `location` a folder inside the repository.",
      },
    );
  }
  return { top, repo, subdir: subdir === "." ? "" : subdir };
}

/** The commit branch `branch` of `repo` points to, or null when there is no such branch. */
function branchHead(repo: string, branch: string, env: GitEnv): string | null {
  try {
    return git(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}^{commit}`], repo, env);
  } catch (error) {
    if (error instanceof UwfError && error.message.startsWith("git was not found")) throw error;
    return null;
  }
}

function reused(
  path: string,
  branch: string,
  repo: string,
  base: string,
  subdir: string,
): { worktree: ThreadWorktree; cwd: string } {
  const cwd = subdir === "" ? path : join(path, subdir);
  mkdirSync(cwd, { recursive: true });
  return { worktree: { path, branch, repo, base }, cwd };
}

function addWorktree(
  place: WorktreePlace,
  at: { repo: string; base: string; thread: string; subdir: string },
): { worktree: ThreadWorktree; cwd: string } {
  const path = worktreePath(place, at.repo, at.thread);
  const branch = worktreeBranch(at.thread);
  if (existsSync(path)) {
    throw new UwfError("WORKTREE_FAILED", `the worktree folder "${path}" already exists`, {
      hint: "Remove it or choose another folder with `uwf config set worktrees.dir <dir>`.",
    });
  }
  git(["worktree", "add", "--quiet", "-b", branch, path, at.base], at.repo, place.env);
  const cwd = at.subdir === "" ? path : join(path, at.subdir);
  // The cwd may be a folder git does not track (empty, or ignored): make it in the worktree.
  mkdirSync(cwd, { recursive: true });
  return { worktree: { path, branch, repo: at.repo, base: at.base }, cwd };
}

/** What removing a thread's worktree did, for the user. */
export interface WorktreeRemoval {
  path: string;
  branch: string;
  removed: boolean;
  branchRemoved: boolean;
  note: string;
}

/**
 * Remove a thread's worktree unless it holds uncommitted work (then it is kept and the note says
 * how to finish by hand). The branch goes too when it holds no commit beyond the base;
 * otherwise it is kept, since it is the thread's committed work.
 */
export function removeThreadWorktree(worktree: ThreadWorktree, env: GitEnv): WorktreeRemoval {
  const { path, branch, repo } = worktree;
  const removal: WorktreeRemoval = { path, branch, removed: false, branchRemoved: false, note: "" };
  const notes: string[] = [];
  if (existsSync(path)) {
    const changes = git(["status", "--porcelain", "--untracked-files=normal"], path, env)
      .split("\n")
      .filter((line) => line !== "");
    if (changes.length > 0) {
      removal.note = `worktree ${path} kept: it has ${changes.length} uncommitted change${changes.length === 1 ? "" : "s"}; commit or discard them, then run: git worktree remove ${path}`;
      return removal;
    }
    git(["worktree", "remove", path], repo, env);
    notes.push(`worktree ${path} removed`);
  } else {
    // Removed by hand: forget its administrative files.
    git(["worktree", "prune"], repo, env);
    notes.push(`worktree ${path} was already gone`);
  }
  removal.removed = true;
  let head: string | null = null;
  try {
    head = git(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}^{commit}`], repo, env);
  } catch {
    head = null;
  }
  if (head === null) {
    notes.push(`branch ${branch} is gone`);
  } else if (head === worktree.base) {
    git(["branch", "-D", branch], repo, env);
    removal.branchRemoved = true;
    notes.push(`branch ${branch} removed (no commits)`);
  } else {
    notes.push(
      `branch ${branch} kept: it holds the thread's commits (git branch -D ${branch} deletes it)`,
    );
  }
  removal.note = notes.join("; ");
  return removal;
}

/** Whether `cwd` lies inside the worktree `path` (or is it). */
export function isInside(path: string, cwd: string): boolean {
  return cwd === path || cwd.startsWith(path.endsWith(sep) ? path : path + sep);
}

interface GitCallOptions {
  /** The error for a git that ran and failed, instead of quoting its stderr. */
  failure?: () => UwfError;
}

function git(args: string[], cwd: string, env: GitEnv, options: GitCallOptions = {}): string {
  try {
    return nodeChildProcess()
      .execFileSync("git", args, {
        cwd,
        env: { ...env, GIT_TERMINAL_PROMPT: "0" } as NodeJS.ProcessEnv,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        timeout: 120_000,
      })
      .trim();
  } catch (error) {
    const failed = error as NodeJS.ErrnoException & { stderr?: string };
    if (failed.code === "ENOENT" && !existsSync(cwd)) {
      throw new UwfError("WORKTREE_FAILED", `the folder "${cwd}" does not exist`, {
        hint: "The repository or worktree was moved or deleted; `uwf thread show` tells which the thread expects.",
      });
    }
    if (failed.code === "ENOENT") {
      throw new UwfError("WORKTREE_FAILED", "git was not found in PATH", {
        hint: "Install git (a thread with a worktree needs it) or start the thread with --no-worktree. Run: which git",
      });
    }
    if (options.failure) throw options.failure();
    const stderr = (failed.stderr ?? "").toString().trim().split("\n").slice(-3).join(" ");
    throw new UwfError(
      "WORKTREE_FAILED",
      `git ${args.slice(0, 2).join(" ")} failed in "${cwd}": ${stderr || failed.message}`,
      { hint: "Fix what git says above, then run the command again." },
    );
  }
}
