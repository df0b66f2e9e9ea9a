import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { DIFF_STAT_FILES, type DiffStat, type GitState } from "@united-workforce/protocol";
import { nodeOs } from "@united-workforce/util";
import { type GitEnv, GitFailure, runGit } from "./git.js";

/** A git working tree as a step found it: where its top folder is, and its state then. */
export interface WorkingTree extends GitState {
  root: string;
  /** The repository's own index, which a snapshot starts from and never writes. */
  index: string;
}

/**
 * The state of the git working tree holding `cwd`: HEAD's commit and the tree of every file
 * git tracks or would add (`git add -A`), uncommitted changes included. Null when `cwd` is in
 * no working tree (or git is not installed): such a step records nothing. The tree is written
 * through a temporary index, a copy of the repository's, so the user's index and HEAD are
 * never touched; its objects go to the repository's object store like any `git add`.
 * A failing git throws `GitFailure`.
 */
export async function snapshotWorkingTree(
  cwd: string,
  env: GitEnv,
  known?: Pick<WorkingTree, "root" | "index">,
): Promise<WorkingTree | null> {
  const where = known ?? (await locate(cwd, env));
  if (where === null) return null;
  const call = { cwd: where.root, env };
  const commit = await headCommit(where.root, env);
  const scratch = mkdtempSync(join(nodeOs().tmpdir(), "uwf-receipt-"));
  try {
    const index = join(scratch, "index");
    // The user's index makes `add -A` re-hash only what changed since it was written.
    copyIndex(where.index, index);
    const withIndex = { ...call, extraEnv: { GIT_INDEX_FILE: index } };
    await runGit(["add", "--all"], withIndex);
    const tree = (await runGit(["write-tree"], withIndex)).trim();
    return { ...where, commit, tree };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The working tree's top folder and index, or null when `cwd` is in none. */
async function locate(
  cwd: string,
  env: GitEnv,
): Promise<Pick<WorkingTree, "root" | "index"> | null> {
  // No `.git` up the path: no git is started (nor child_process loaded) for such a step.
  if (!hasGitAbove(cwd)) return null;
  let said: string;
  try {
    said = await runGit(["rev-parse", "--show-toplevel", "--git-path", "index"], { cwd, env });
  } catch (error) {
    // Not a repository (or a bare one, or inside .git), no git at all, or no such folder.
    if (error instanceof GitFailure && (error.notInstalled || error.exitCode !== null)) return null;
    throw error;
  }
  const [root, index] = said.split("\n");
  if (!root || !index) return null;
  return { root, index: resolve(cwd, index) };
}

/** Whether `dir` or a folder above it holds `.git` (a repository's folder, or a worktree's file). */
function hasGitAbove(dir: string): boolean {
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (existsSync(join(at, ".git"))) return true;
    if (dirname(at) === at) return false;
  }
}

/** The commit HEAD names, or null on a branch with no commit yet. */
async function headCommit(root: string, env: GitEnv): Promise<string | null> {
  try {
    return (
      await runGit(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], { cwd: root, env })
    ).trim();
  } catch (error) {
    if (error instanceof GitFailure && error.exitCode === 1) return null;
    throw error;
  }
}

function copyIndex(from: string, to: string): void {
  try {
    copyFileSync(from, to);
  } catch (error) {
    // A repository without an index yet (nothing ever added) starts from an empty one.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

/**
 * What changed from tree `before` to tree `after`: per file, lines added and removed (null for
 * a binary file), renames seen as a removal and an addition. Lists the first
 * `DIFF_STAT_FILES` files; the totals count them all.
 */
export async function diffStat(
  root: string,
  env: GitEnv,
  before: string,
  after: string,
): Promise<DiffStat> {
  const stat: DiffStat = { files: 0, insertions: 0, deletions: 0, perFile: [] };
  if (before === after) return stat;
  const out = await runGit(["diff-tree", "-r", "--no-renames", "--numstat", "-z", before, after], {
    cwd: root,
    env,
  });
  // Each record: `<added>\t<removed>\t<path>\0`, `-` for a binary file's counts.
  for (const record of out.split("\0")) {
    if (record === "") continue;
    const [added, removed, ...path] = record.split("\t");
    const insertions = added === "-" ? null : Number(added);
    const deletions = removed === "-" ? null : Number(removed);
    stat.files++;
    stat.insertions += insertions ?? 0;
    stat.deletions += deletions ?? 0;
    if (stat.perFile.length < DIFF_STAT_FILES) {
      stat.perFile.push({ path: path.join("\t"), insertions, deletions });
    }
  }
  return stat;
}
