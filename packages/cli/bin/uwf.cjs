#!/usr/bin/env node
"use strict";
// Answer --version before loading anything: it is the one call scripts make in a loop.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "-V" || args[0] === "--version")) {
  const { readFileSync, writeSync } = require("node:fs");
  const { version } = JSON.parse(readFileSync(`${__dirname}/../package.json`, "utf8"));
  // Straight to the descriptor: process.stdout for a pipe would load net and the streams.
  writeSync(1, `${version}\n`);
} else {
  if (runsAnAdapter(args)) startWarmNode();
  require("../dist/bundle/boot.cjs").boot("uwf", 2);
}

/**
 * Whether this command, in the foreground, runs adapters' steps: `thread exec`, `resume` and
 * `poke`, `workflow test`. The command words are the first two arguments that are not options,
 * as boot.cjs reads them.
 */
function runsAnAdapter(argv) {
  const words = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    if (argv[i] === "--") break;
    if (argv[i] === "--format") i++;
    else if (!argv[i].startsWith("-")) words.push(argv[i]);
  }
  const command = words.join(" ");
  if (!["thread exec", "thread resume", "thread poke", "workflow test"].includes(command)) {
    return false;
  }
  return !argv.some((arg) => arg === "--background" || arg === "-h" || arg === "--help");
}

/**
 * Start the Node process the step's adapter will run in (bin/warm-node.cjs) now, while this one
 * loads its own code: the engine's `runAdapter` takes it from the slot below when the step's
 * program is a Node script, and sends it what to run. Unused, it ends when this process does.
 */
function startWarmNode() {
  if (process.platform === "win32" || process.env.UWF_WARM_START === "0") return;
  try {
    const child = require("node:child_process").spawn(
      process.execPath,
      // The blank argument is room for the process title warm-node.cjs sets (what `ps` shows).
      [`${__dirname}/warm-node.cjs`, " ".repeat(4096)],
      { detached: true, stdio: ["ignore", "pipe", "pipe", "pipe"] },
    );
    // A process that could not start, or died unused, is simply not used: no error of its own.
    child.on("error", () => {});
    // Until the engine takes it, it must not keep this process alive.
    child.unref();
    for (const stream of child.stdio) {
      stream?.on("error", () => {});
      stream?.unref?.();
    }
    globalThis[Symbol.for("@united-workforce/warm-node")] = {
      child,
      env: { ...process.env },
      // For a run of several steps: the engine starts the next one as it takes this one.
      restart: startWarmNode,
    };
  } catch {
    // The step's adapter is spawned as usual.
  }
}
