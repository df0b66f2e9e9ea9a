#!/usr/bin/env node
"use strict";
// Answer --version before loading anything: it is the one call scripts make in a loop.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "-V" || args[0] === "--version")) {
  const { version } = JSON.parse(
    require("node:fs").readFileSync(`${__dirname}/../package.json`, "utf8"),
  );
  process.stdout.write(`${version}\n`);
} else {
  require("../dist/bundle/boot.cjs").boot("uwf", 2);
}
