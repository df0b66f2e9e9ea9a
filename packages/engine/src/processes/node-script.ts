import { closeSync, openSync, readSync, realpathSync } from "node:fs";
import { resolve } from "node:path";

/**
 * The script and its arguments when `program args` runs a Node script with this process's Node:
 * `node <script> …` (no Node options before the script), or a script whose `#!` line is
 * `/usr/bin/env node` (`which` finds the first `node` on the adapter's PATH) or this Node's path.
 */
export function nodeScript(
  program: string,
  args: readonly string[],
  cwd: string,
  which: (command: string) => string | null,
): { file: string; args: string[] } | null {
  if (isThisNode(program)) {
    const [script, ...rest] = args;
    if (script === undefined || script.startsWith("-")) return null;
    return { file: resolve(cwd, script), args: rest };
  }
  const interpreter = shebang(program);
  if (interpreter === null) return null;
  const [command = "", argument, extra] = interpreter;
  let node: string | null = null;
  if (command.endsWith("/env") && argument === "node" && extra === undefined) {
    node = which("node");
  } else if (argument === undefined) {
    node = command;
  }
  return node !== null && isThisNode(node) ? { file: program, args: [...args] } : null;
}

let thisNode: string | undefined;

function isThisNode(path: string): boolean {
  thisNode ??= realpathSync(process.execPath);
  try {
    return realpathSync(path) === thisNode;
  } catch {
    return false;
  }
}

/** The words of a file's `#!` line, or null when it has none. */
function shebang(path: string): string[] | null {
  let head: string;
  try {
    const fd = openSync(path, "r");
    try {
      const buffer = Buffer.alloc(256);
      head = buffer.toString("latin1", 0, readSync(fd, buffer, 0, buffer.length, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
  const end = head.indexOf("\n");
  if (!head.startsWith("#!") || end === -1) return null;
  const words = head
    .slice(2, end)
    .trim()
    .split(/[ \t]+/);
  return words[0] ? words : null;
}
