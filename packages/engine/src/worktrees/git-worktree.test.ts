import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import {
  createThreadWorktree,
  ensureChildWorktree,
  forkThreadWorktree,
  removeThreadWorktree,
  type WorktreePlace,
} from "./git-worktree.js";

let base: string;
let repo: string;
let place: WorktreePlace;
const env = { PATH: process.env.PATH, HOME: "" };
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", env: { ...env, HOME: base } }).trim();

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "uwf-git-worktree-")));
  repo = join(base, "repo");
  mkdirSync(join(repo, "pkg"), { recursive: true });
  git(repo, "init", "--quiet");
  git(
    repo,
    "-c",
    "user.name=t",
    "-c",
    "user.email=t@e",
    "commit",
    "-q",
    "--allow-empty",
    "-m",
    "a",
  );
  place = { home: join(base, "home"), env: { ...env, HOME: base } };
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe("thread worktrees", () => {
  test("a subfolder the repository does not track is made in the worktree", () => {
    const made = createThreadWorktree(place, join(repo, "pkg"), "T1");
    expect(made.worktree.path).toBe(join(base, "home", "worktrees", "repo", "T1"));
    expect(made.cwd).toBe(join(made.worktree.path, "pkg"));
    expect(existsSync(made.cwd)).toBe(true);
  });

  test("a fork whose parent branch is gone starts from the parent's base commit", () => {
    const parent = createThreadWorktree(place, repo, "T1");
    removeThreadWorktree(parent.worktree, place.env);
    expect(git(repo, "branch", "--list", "uwf/T1")).toBe("");
    const fork = forkThreadWorktree(place, parent.worktree, parent.cwd, "T2");
    expect(fork.worktree).toMatchObject({ branch: "uwf/T2", base: parent.worktree.base });
    expect(git(fork.cwd, "rev-parse", "HEAD")).toBe(parent.worktree.base);
  });

  test("a repository that was deleted is named, not mistaken for a missing git", () => {
    const parent = createThreadWorktree(place, repo, "T1");
    rmSync(repo, { recursive: true, force: true });
    expect(() => forkThreadWorktree(place, parent.worktree, parent.cwd, "T2")).toThrow(
      `the folder "${repo}" does not exist`,
    );
  });
});

describe("a fan-out child's worktree", () => {
  const worktrees = () =>
    git(repo, "worktree", "list", "--porcelain")
      .split("\n")
      .filter((line) => line.startsWith("worktree "));

  test("branches from the parent's checkout at the item's location", () => {
    const made = ensureChildWorktree(place, { cwd: repo }, join(repo, "pkg"), "C1");
    expect(made.worktree).toMatchObject({
      path: join(base, "home", "worktrees", "repo", "C1"),
      branch: "uwf/C1",
      repo,
      base: git(repo, "rev-parse", "HEAD"),
    });
    expect(made.cwd).toBe(join(made.worktree.path, "pkg"));
    expect(existsSync(made.cwd)).toBe(true);
  });

  test("made again after a crash before the child's pointer: the same worktree, not a second", () => {
    writeFileSync(join(repo, "a.txt"), "a\n");
    git(repo, "add", ".");
    git(repo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "a.txt");
    const first = ensureChildWorktree(place, { cwd: repo }, repo, "C1");
    // A checkout the crash cut short: a file git tracks is missing.
    rmSync(join(first.cwd, "a.txt"));
    const again = ensureChildWorktree(place, { cwd: repo }, repo, "C1");
    expect(again).toEqual(first);
    expect(existsSync(join(again.cwd, "a.txt"))).toBe(true);
    expect(worktrees()).toHaveLength(2);
  });

  test("a branch whose folder is gone is checked out again at the same path", () => {
    const first = ensureChildWorktree(place, { cwd: repo }, repo, "C1");
    rmSync(first.worktree.path, { recursive: true, force: true });
    const again = ensureChildWorktree(place, { cwd: repo }, repo, "C1");
    expect(again).toEqual(first);
    expect(existsSync(join(again.worktree.path, ".git"))).toBe(true);
    expect(worktrees()).toHaveLength(2);
  });

  test("a parent with a worktree: from its branch's head, in the main repository", () => {
    const parent = createThreadWorktree(place, join(repo, "pkg"), "P1");
    writeFileSync(join(parent.cwd, "plan.txt"), "plan\n");
    git(parent.cwd, "add", ".");
    git(parent.cwd, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "plan");
    const child = ensureChildWorktree(
      place,
      { cwd: parent.cwd, worktree: parent.worktree },
      parent.cwd,
      "C1",
    );
    expect(child.worktree.repo).toBe(repo);
    expect(child.worktree.base).toBe(git(parent.cwd, "rev-parse", "HEAD"));
    expect(child.cwd).toBe(join(child.worktree.path, "pkg"));
    expect(existsSync(join(child.cwd, "plan.txt"))).toBe(true);
  });

  test("a location outside the repository is refused, and nothing is made", () => {
    expect(() => ensureChildWorktree(place, { cwd: repo }, base, "C1")).toThrow(
      `the child's folder "${base}" lies outside the repository "${repo}"`,
    );
    expect(worktrees()).toHaveLength(1);
  });
});
