"use strict";
// The floor of one step: a bare Node process that does what `uwf thread exec` must do around
// its adapter and nothing else. It loads child_process, spawns `node -e 0` as uwf spawns an
// adapter (its own process group, stdout and stderr piped), reads both pipes and exits when
// the child has. `pnpm bench` times it next to a real step: no engine written in JavaScript
// can start, then spawn a Node adapter and collect it, faster than this. uwf goes under it by
// not waiting: its bin starts the adapter's Node before loading its own code (warm-node.cjs).
const child = require("node:child_process").spawn(process.execPath, ["-e", "0"], {
  detached: true,
  stdio: ["ignore", "pipe", "pipe"],
});
child.stdout.resume();
child.stderr.resume();
child.on("close", (code) => {
  process.exitCode = code ?? 1;
});
