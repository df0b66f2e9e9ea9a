"use strict";
// A Node process `uwf` starts at its own start, before it knows which adapter a step runs, so
// that the adapter's Node start overlaps uwf's own (DESIGN §14, docs/decisions/warm-start.md).
//
// It waits for one message on fd 3: JSON `{ file, args, cwd, env, report }`, written by the
// engine's `runAdapter` once it has chosen a Node adapter. It then becomes that adapter as a
// spawn would have made it: the working directory, the whole environment and `process.argv`
// replaced, and the script run as the main module. End of file without a message (uwf chose
// another program, or ended) ends it quietly. It prints nothing of its own but the exit report
// (`reportExit`): its stdout and stderr are the adapter's. Its one argument is blank: room for
// the adapter's command line as its title.
const { closeSync, fstatSync, readSync, writeSync } = require("node:fs");

const chunks = [];
const buffer = Buffer.allocUnsafe(64 * 1024);
for (;;) {
  let read;
  try {
    read = readSync(3, buffer, 0, buffer.length, null);
  } catch (error) {
    if (error.code === "EAGAIN") continue;
    if (error.code === "EOF") break;
    throw error;
  }
  if (read === 0) break;
  chunks.push(Buffer.from(buffer.subarray(0, read)));
}
// Not inherited by what the adapter starts: uwf waits for every one of its pipes to close.
closeSync(3);

if (chunks.length > 0) {
  const { file, args, cwd, env, report } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  if (typeof report === "string" && /^[0-9a-f]{32}$/.test(report)) reportExit(report);
  process.chdir(cwd);
  for (const name of Object.keys(process.env)) {
    if (!Object.hasOwn(env, name)) delete process.env[name];
  }
  Object.assign(process.env, env);
  process.argv = [process.execPath, file, ...args];
  // What `ps` and `pgrep -f` show, as for a spawned `node <file> …`: the bin started this process
  // with a blank argument, so that the title has room (up to 4 KiB, then cut).
  process.title = ["node", file, ...args].join(" ");
  // As `node <file>` runs it: `require.main` is the script, and an ES module loads as one.
  require("node:module").runMain(file);
}

/**
 * Once the process is exiting, with every `exit` listener run and so its exit code final, write
 * `\0uwf-exit <key> <code>\n` last on stderr and on stdout. uwf then has the exit code and all
 * of both streams ≈ 3 ms before it could see the exit itself: Node's teardown and the kernel's
 * come after. `key` came on fd 3, which the adapter never sees, so that nothing it starts can
 * forge the line. Whenever the code could still change, nothing is written and uwf waits for
 * the exit as for any process: an uncaught exception (Node prints it after the `exit` event),
 * a listener that throws, a stdout or stderr that is no longer the pipe uwf reads. So too for
 * an adapter that was signalled, whatever code it then ends with (a handled signal is emitted
 * on `process`; a code of 128 or more says so too, 130 when interrupted): `thread stop`
 * signals uwf before the adapter, and uwf must see its own signal first, which the real exit,
 * coming as SIGCHLD through the same signal pipe, guarantees.
 */
function reportExit(key) {
  const pipes = [2, 1].map((fd) => [fd, inode(fd)]);
  let reportable = true;
  process.on("uncaughtExceptionMonitor", () => {
    reportable = false;
  });
  const emit = process.emit;
  // Wrapped rather than listened to: a listener added later would run after this one.
  process.emit = function emitThenReport(event, ...args) {
    if (typeof event === "string" && /^SIG[A-Z0-9]+$/.test(event)) reportable = false;
    const result = Reflect.apply(emit, this, [event, ...args]);
    if (event === "exit" && reportable) {
      const code = process.exitCode ?? 0;
      if (
        Number.isInteger(code) &&
        (code & 0xff) < 128 &&
        pipes.every(([fd, node]) => node !== null && inode(fd) === node)
      ) {
        const line = Buffer.from(`\0uwf-exit ${key} ${code & 0xff}\n`);
        for (const [fd] of pipes) writeWhole(fd, line);
      }
    }
    return result;
  };
}

/**
 * The inode of what `fd` is open on, or null. Asked with `bigint`, which fills a stat array of
 * its own: Node 20's `realpathSync`, resolving the adapter's path for `runMain`, reads the last
 * plain stat's file type for a folder it has cached, and stops at a socket's, so that a script
 * reached through a symlink (`node_modules/.bin/uwf-mock`) would load from the symlink's folder.
 */
function inode(fd) {
  try {
    return fstatSync(fd, { bigint: true }).ino;
  } catch {
    return null;
  }
}

/**
 * Write all of `bytes`; a full pipe (EAGAIN) is waited for a millisecond at a time, any other
 * error gives up. As util's `writeToFd` does: this file runs before any bundle, so it cannot
 * use it.
 */
function writeWhole(fd, bytes) {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let at = 0;
  while (at < bytes.length) {
    try {
      at += writeSync(fd, bytes, at);
    } catch (error) {
      if (error.code !== "EAGAIN") return;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}
