import type { ChildProcess } from "node:child_process";
import { closeSync, openSync, readSync, realpathSync } from "node:fs";
import { resolve } from "node:path";
import type { Duplex } from "node:stream";

/**
 * A Node process started before its program was known (the `uwf` bin starts one for `thread
 * exec`, `resume`, `poke` and `workflow test`: `bin/warm-node.cjs`), waiting on fd 3 for the script to run. Its
 * Node start then overlaps this process's own instead of following it (DESIGN §14).
 */
export interface WarmNode {
  child: ChildProcess;
  /** The environment it was started with: what Node read as it started. */
  env: NodeJS.ProcessEnv;
  /** Start another into the slot (the bin's own function), for the run's next step. */
  restart?(): void;
}

/** Where the bin leaves its warm process; a global, because the bin runs before any module. */
const SLOT = Symbol.for("@united-workforce/warm-node");

type Slot = { [SLOT]?: WarmNode };

/** Whether the run may spawn another program after the one that takes the warm process. */
let moreToCome = false;

/**
 * Say whether the run may spawn another program after the next one (`runSteps`: more steps
 * allowed). While it may, taking the warm process starts the next one, which then starts while
 * this step's program runs instead of after it.
 */
export function keepWarmNode(more: boolean): void {
  moreToCome = more;
}

/**
 * Environment variables Node reads as it starts (its `NODE_*` but the applications' NODE_ENV,
 * libuv's, OpenSSL's, the locale ICU takes): a warm process cannot take a change later.
 */
const READ_AT_START = /^(?:NODE_(?!ENV$)|UV_|OPENSSL_|SSL_CERT_|LC_)|^(?:LANG|LANGUAGE|TZ)$/;

/**
 * The warm process, now running `program args` in `cwd` with `env` as a spawn would, or null
 * when there is none or it cannot be this program: not a Node script run by this Node, an
 * environment Node would have started differently with, or a process no longer waiting. Taken
 * once: whatever this returns null for is spawned as usual.
 */
export function takeWarmNode(
  program: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string | undefined>,
  which: (command: string) => string | null,
): ChildProcess | null {
  const slot = globalThis as Slot;
  const warm = slot[SLOT];
  if (warm === undefined) return null;
  const { child } = warm;
  const channel = child.stdio[3] as Duplex | null | undefined;
  if (
    child.pid === undefined ||
    child.exitCode !== null ||
    child.signalCode !== null ||
    !channel?.writable ||
    !sameStartEnvironment(warm.env, env)
  ) {
    return null;
  }
  const script = nodeScript(program, args, cwd, which);
  if (script === null) return null;

  delete slot[SLOT];
  if (moreToCome) warm.restart?.();
  child.ref();
  for (const stream of child.stdio) (stream as { ref?(): void } | null)?.ref?.();
  // The process never writes to fd 3; read it to its end so that the pipe closes.
  channel.on("error", () => {});
  channel.resume();
  channel.end(JSON.stringify({ file: script.file, args: script.args, cwd, env }));
  return child;
}

function sameStartEnvironment(
  started: NodeJS.ProcessEnv,
  wanted: Record<string, string | undefined>,
): boolean {
  for (const name of Object.keys(started)) {
    if (READ_AT_START.test(name) && started[name] !== wanted[name]) return false;
  }
  for (const name of Object.keys(wanted)) {
    if (READ_AT_START.test(name) && started[name] !== wanted[name]) return false;
  }
  return true;
}

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
