import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Run git in `cwd` with HOME at `home` (no user config is read); its stdout, trimmed. */
export function runGit(home: string, cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, HOME: home },
  }).trim();
}

/**
 * A git repository at `dir` with one commit ("init", by "uwf test") of `files` (path → text)
 * and nothing else already in `dir`, made with HOME at `home`. Returns its real path: worktrees and thread cwds name that one.
 */
export function makeGitRepo(home: string, dir: string, files: Record<string, string>): string {
  mkdirSync(dir, { recursive: true });
  runGit(home, dir, "init", "--quiet");
  runGit(home, dir, "config", "user.name", "uwf test");
  runGit(home, dir, "config", "user.email", "test@example.com");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  runGit(home, dir, "add", "--", ...Object.keys(files));
  runGit(home, dir, "commit", "--quiet", "-m", "init");
  return realpathSync(dir);
}
