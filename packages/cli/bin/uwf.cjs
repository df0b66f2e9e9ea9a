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
  // The Node process the step's adapter will run in starts now, while this one loads its code.
  if (runsAnAdapter(args)) require("./warm-start.cjs").startWarmNode();
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
