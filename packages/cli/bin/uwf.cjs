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
  require("../dist/bundle/boot.cjs").boot("uwf", 2);
}
