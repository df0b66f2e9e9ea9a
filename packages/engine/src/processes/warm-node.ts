import { closeSync, openSync, readSync } from "node:fs";
import { nodeScript } from "./node-script.js";
import { WarmChild, type WarmHandles } from "./warm-child.js";

/**
 * A Node process started before its program was known (the `uwf` bin starts one for `thread
 * exec`, `resume`, `poke` and `workflow test`: `bin/warm-start.cjs` spawns `bin/warm-node.cjs`),
 * waiting on fd 3 for the script to run. Its Node start then overlaps this process's own
 * instead of following it (DESIGN §14). The bin spawns it through Node's `process_wrap`
 * binding, so what it leaves are that binding's handles, not a `ChildProcess`.
 */
export interface WarmNode extends WarmHandles {
  /** Set when it ended before anything took it. */
  exited: boolean;
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
 * environment Node would have started differently with, or a process that has ended. Taken
 * once: whatever this returns null for is spawned as usual.
 */
export function takeWarmNode(
  program: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string | undefined>,
  which: (command: string) => string | null,
): WarmChild | null {
  const slot = globalThis as Slot;
  const warm = slot[SLOT];
  if (warm === undefined || warm.exited || !sameStartEnvironment(warm.env, env)) return null;
  const script = nodeScript(program, args, cwd, which);
  if (script === null) return null;

  delete slot[SLOT];
  if (moreToCome) warm.restart?.();
  const report = reportKey();
  const child = new WarmChild(warm, report);
  const channel = child.stdio[3];
  // The process never writes to fd 3; read it to its end so that the pipe closes.
  channel.on("error", () => {});
  channel.resume();
  channel.end(JSON.stringify({ file: script.file, args: script.args, cwd, env, report }));
  return child;
}

/**
 * 32 hex digits from the system's random source: what the exit report must carry. Read from
 * /dev/urandom (the warm start is for Linux and macOS) rather than through `node:crypto`, which
 * would cost this exec ≈ 2 ms to load.
 */
function reportKey(): string {
  const bytes = Buffer.alloc(16);
  const fd = openSync("/dev/urandom", "r");
  try {
    readSync(fd, bytes, 0, bytes.length, null);
  } finally {
    closeSync(fd);
  }
  return bytes.toString("hex");
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
