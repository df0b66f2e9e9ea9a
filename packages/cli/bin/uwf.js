#!/usr/bin/env node
// Answer --version before loading anything: it is the one call scripts make in a loop.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "-V" || args[0] === "--version")) {
  const { readFileSync } = await import("node:fs");
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  process.stdout.write(`${pkg.version}\n`);
} else {
  await import("../dist/bundle/main.js");
}
