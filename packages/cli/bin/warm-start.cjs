"use strict";
// Starts the Node process a step's adapter will run in (warm-node.cjs), for bin/uwf.cjs: the
// adapter's Node start then overlaps uwf's own (DESIGN §14, docs/decisions/warm-start.md).
//
// It is spawned through Node's `process_wrap` and `pipe_wrap` bindings, the ones
// `child_process` is built on. At this point of uwf's start, loading `child_process` and its
// JavaScript spawn path cost ≈ 4 ms, the bindings < 1 ms, and that time is spent before the
// warm process can begin its own start. Both bindings are on `process.binding`'s allow-list,
// unchanged from Node 20 to 25; if they ever fail, there is simply no warm process.

const SLOT = Symbol.for("@united-workforce/warm-node");

/**
 * Spawn the warm process and leave it in the slot the engine's `takeWarmNode` reads:
 * `{ process, pipes, exited, env, restart }`, where `pipes` are the ends of its stdout, its
 * stderr and fd 3 (what it reads the step from), not yet read. Until the engine takes it,
 * nothing here keeps uwf alive; unused, it ends when uwf does and so closes fd 3.
 * Returns what it left in the slot, or undefined.
 */
function startWarmNode(env = process.env) {
  if (process.platform === "win32" || env.UWF_WARM_START === "0" || pendingDeprecation(env)) {
    return undefined;
  }
  let handle;
  const pipes = [];
  try {
    const { Process } = process.binding("process_wrap");
    const { Pipe, constants } = process.binding("pipe_wrap");
    handle = new Process();
    for (let i = 0; i < 3; i++) pipes.push(new Pipe(constants.SOCKET));
    const started = { ...env };
    const warm = {
      process: handle,
      pipes,
      exited: false,
      env: started,
      // For a run of several steps: the engine starts the next one as it takes this one.
      restart: () => startWarmNode(env),
    };
    // A process that died unused is simply not used: no error of its own.
    handle.onexit = () => {
      warm.exited = true;
      handle.close();
    };
    const error = handle.spawn({
      file: process.execPath,
      // The blank argument is room for the process title warm-node.cjs sets (what `ps` shows).
      args: [process.execPath, `${__dirname}/warm-node.cjs`, " ".repeat(4096)],
      cwd: process.cwd(),
      envPairs: Object.keys(started).map((name) => `${name}=${started[name]}`),
      // Its own process group, as every adapter gets: the engine ends a step by killing it.
      detached: true,
      stdio: [{ type: "ignore" }, ...pipes.map((pipe) => ({ type: "pipe", handle: pipe }))],
    });
    if (error !== 0) throw new Error(`spawn failed (${error})`);
    handle.unref();
    for (const pipe of pipes) pipe.unref();
    globalThis[SLOT] = warm;
    return warm;
  } catch {
    // The step's adapter is spawned as usual.
    for (const pipe of pipes) pipe.close();
    handle?.close();
    return undefined;
  }
}

/** `--pending-deprecation` turns `process.binding` into a call that prints a warning. */
function pendingDeprecation(env) {
  return (
    env.NODE_PENDING_DEPRECATION === "1" ||
    process.execArgv.includes("--pending-deprecation") ||
    (env.NODE_OPTIONS ?? "").includes("--pending-deprecation")
  );
}

module.exports = { startWarmNode };
