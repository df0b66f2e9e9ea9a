#!/usr/bin/env node
// The README's first command (`npm run setup`): install with the pinned pnpm, build, and run a
// real workflow end to end with the mock agent. Needs only Node ≥ 20 and npm.
import { spawnSync } from "node:child_process";
import { pinnedPnpm, REPO_ROOT } from "./lib/packages.mjs";

function run(command, args) {
  console.log(`\n$ ${[command, ...args].join(" ")}`);
  const result = spawnSync(command, args, { cwd: REPO_ROOT, stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`\nsetup failed at: ${[command, ...args].join(" ")}`);
    process.exit(result.status ?? 1);
  }
}

const pnpm = pinnedPnpm();

run(pnpm[0], [...pnpm.slice(1), "install", "--frozen-lockfile"]);
run(pnpm[0], [...pnpm.slice(1), "build"]);
run(process.execPath, ["scripts/demo.mjs"]);
