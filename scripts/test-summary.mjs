#!/usr/bin/env node
// Runs vitest with its JSON reporter next to the default one, then prints the plain
// "N passed, N failed" line that CI reads. Exits with vitest's own status.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const report = `${root}.vitest-report.json`;
rmSync(report, { force: true });

const vitest = `${root}node_modules/.bin/vitest`;
const run = spawnSync(
  vitest,
  [
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: "inherit" },
);

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(report)) {
  const data = JSON.parse(readFileSync(report, "utf8"));
  passed = data.numPassedTests ?? 0;
  failed = (data.numFailedTests ?? 0) + (data.numFailedTestSuites ?? 0);
  skipped = (data.numPendingTests ?? 0) + (data.numTodoTests ?? 0);
} else {
  failed = 1;
  console.error("vitest wrote no JSON report");
}
const status = run.status ?? 1;
if (status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(status);
