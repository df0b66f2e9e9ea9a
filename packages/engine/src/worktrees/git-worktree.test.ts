import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import {
  createThreadWorktree,
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
