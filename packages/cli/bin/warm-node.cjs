"use strict";
// A Node process `uwf` starts at its own start, before it knows which adapter a step runs, so
// that the adapter's Node start overlaps uwf's own (DESIGN §14, docs/decisions.md "warm start").
//
// It waits for one message on fd 3: JSON `{ file, args, cwd, env }`, written by the engine's
// `runAdapter` once it has chosen a Node adapter. It then becomes that adapter as a spawn would
// have made it: the working directory, the whole environment and `process.argv` replaced, and
// the script run as the main module. End of file without a message (uwf chose another program,
// or ended) ends it quietly. It prints nothing of its own: its stdout and stderr are the
// adapter's. Its one argument is blank: room for the adapter's command line as its title.
const { closeSync, readSync } = require("node:fs");

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
  const { file, args, cwd, env } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
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
