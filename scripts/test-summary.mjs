#!/usr/bin/env node
// Runs vitest with its JSON reporter next to the default one, then prints the plain
// "N passed, N failed" line that CI reads. Exits with vitest's own status. First it makes
// sure the pinned agent CLIs the adapter tests drive are installed (scripts/agent-clis.mjs):
// those tests fail, not skip, without them.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const clis = spawnSync(process.execPath, [`${root}scripts/agent-clis.mjs`], {
  cwd: root,
  stdio: "inherit",
});
if (clis.status !== 0) {
  console.log("0 passed, 1 failed (the agent CLIs could not be installed)");
  process.exit(clis.status ?? 1);
}

// A report of its own per run, so two runs of one tree never read each other's.
const reportDir = mkdtempSync(join(tmpdir(), "uwf-vitest-report-"));
const report = join(reportDir, "report.json");

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
  skipped = (data.numPendingTests ?? 0) + (data.numTodoTests ?? 0);
  // Failed tests, plus each file that failed without a failed test (an import error, a failing
  // hook): vitest's numFailedTestSuites counts describe blocks, not files, so it is not used.
  const failedFiles = (data.testResults ?? []).filter(
    (file) =>
      file.status === "failed" &&
      !(file.assertionResults ?? []).some((test) => test.status === "failed"),
  );
  failed = (data.numFailedTests ?? 0) + failedFiles.length;
} else {
  failed = 1;
  console.error("vitest wrote no JSON report");
}
rmSync(reportDir, { recursive: true, force: true });
const status = run.status ?? 1;
if (status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(status);
