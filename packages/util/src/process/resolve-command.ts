import { statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { shellQuote } from "../terminal-text.js";

/** Where a command was found, or why not, as execve would have said it. */
export type CommandLookup = { path: string } | { missing: "ENOENT" | "EACCES" };

/**
 * Resolve a command the way execvp would, without a shell: a name with a `/` is that file (a
 * relative one read from `cwd`), a bare name the first executable file of that name on
 * `pathEnv`. A file found but not executable is EACCES, as execvp reports it when no other
 * directory of PATH has one that is.
 */
export function lookUpCommand(command: string, pathEnv: string, cwd: string): CommandLookup {
  if (command.includes("/")) {
    const full = isAbsolute(command) ? command : join(cwd, command);
    return executableOrWhyNot(full);
  }
  let denied = false;
  for (const dir of pathEnv.split(delimiter)) {
    if (!dir) continue;
    const found = executableOrWhyNot(join(dir, command));
    if ("path" in found) return found;
    denied ||= found.missing === "EACCES";
  }
  return { missing: denied ? "EACCES" : "ENOENT" };
}

/** The command's full path (see `lookUpCommand`), or null when there is no executable file. */
export function findExecutable(command: string, pathEnv: string, cwd: string): string | null {
  const found = lookUpCommand(command, pathEnv, cwd);
  return "path" in found ? found.path : null;
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

function executableOrWhyNot(path: string): CommandLookup {
  try {
    const stat = statSync(path);
    if (stat.isFile() && (stat.mode & 0o111) !== 0) return { path };
    return { missing: "EACCES" };
  } catch {
    return { missing: "ENOENT" };
  }
}
