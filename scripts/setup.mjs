#!/usr/bin/env node
// The README's first command (`npm run setup`): install with the pinned pnpm, build, and run a
// real workflow end to end with the mock agent. Needs only Node ≥ 20 and npm.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const pnpmVersion = JSON.parse(readFileSync(`${root}package.json`, "utf8")).packageManager.split(
  "@",
)[1];

function run(command, args) {
  console.log(`\n$ ${[command, ...args].join(" ")}`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`\nsetup failed at: ${[command, ...args].join(" ")}`);
    process.exit(result.status ?? 1);
  }
}

const installed = spawnSync("pnpm", ["--version"], { encoding: "utf8" });
const pnpm =
  installed.status === 0 && installed.stdout.trim() === pnpmVersion
    ? ["pnpm"]
    : ["npx", "--yes", `pnpm@${pnpmVersion}`];

run(pnpm[0], [...pnpm.slice(1), "install", "--frozen-lockfile"]);
run(pnpm[0], [...pnpm.slice(1), "build"]);
run(process.execPath, ["scripts/demo.mjs"]);
