#!/usr/bin/env node
// Stands in for an agent CLI during the adapter benchmark's calibration run: records the argv,
// environment, cwd and stdin the adapter gave it into ../record.json (beside the work dir: the
// adapter passes the CLI a minimal environment, so nothing can come through it), then runs the
// real CLI named in ../real-cli with them, so the bare CLI can later be timed with exactly
// that invocation.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const stdin = (() => {
  try {
    return readFileSync(0, "utf8");
  } catch {
    return "";
  }
})();
const env = { ...process.env };
const real = readFileSync(join(process.cwd(), "..", "real-cli"), "utf8").trim();
const record = join(process.cwd(), "..", "record.json");
writeFileSync(
  record,
  JSON.stringify({ args: process.argv.slice(2), env, cwd: process.cwd(), stdin }),
);
const run = spawnSync(real, process.argv.slice(2), {
  input: stdin,
  env,
  stdio: ["pipe", "inherit", "inherit"],
});
process.exitCode = run.status ?? 1;
