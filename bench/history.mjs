#!/usr/bin/env node
// A thread's history commands against a bare `node -e 0` (N0): `uwf thread verify` of a
// 10,000-step thread (target: under 2 × N0 + 1 s) and of a 200-step one, and `thread export` /
// `thread import` of a 1,000-step thread, `thread reroute` of a 1,000-step thread, `thread
// grep` over 10,000 threads of 3 steps (every node read once), and a replay run of a recorded
// solve-issue thread (`uwf workflow test`, every agent step answered by uwf-replay; the run it
// replays, with uwf-mock, beside it). Headline without NODE_EXTRA_CA_CERTS, as in `pnpm
// bench`. Run after `pnpm build`:  pnpm bench:history [-- --runs N]
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildLongThread, buildManyShortThreads } from "./fixtures.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const runsAt = process.argv.indexOf("--runs");
const runs = runsAt === -1 ? 5 : Number(process.argv[runsAt + 1]);
const { openStore } = await import(`${root}packages/store/dist/index.js`);
const uwfBin = join(root, "packages/cli/bin/uwf.cjs");
const home = mkdtempSync(join(tmpdir(), "uwf-bench-verify-"));
const env = { ...process.env, UWF_HOME: home };
delete env.NODE_EXTRA_CA_CERTS;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Median wall time (ms) of `argsOf` run with node, after one unmeasured run; exit must be 0.
 * `envFor` may give each run more environment.
 */
function time(argsOf, envFor = () => ({})) {
  const samples = [];
  for (let i = 0; i <= runs; i++) {
    // `argsOf` may be a function: arguments made fresh for each run, before its clock starts.
    const args = typeof argsOf === "function" ? argsOf() : argsOf;
    const started = process.hrtime.bigint();
    const run = spawnSync(process.execPath, args, {
      env: { ...env, ...envFor() },
      encoding: "utf8",
    });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (run.status !== 0)
      throw new Error(`${args.join(" ")} exited ${run.status}: ${run.stderr}${run.stdout}`);
    if (i > 0) samples.push(ms);
  }
  return median(samples);
}

try {
  const added = spawnSync(
    process.execPath,
    [uwfBin, "workflow", "add", join(root, "bench/loop.yaml"), "--format", "json"],
    { env, encoding: "utf8" },
  );
  const loopHash = JSON.parse(added.stdout).hash;
  const store = await openStore({ home });
  const short = await buildLongThread(store, loopHash, 200, root);
  const long = await buildLongThread(store, loopHash, 10_000, root);
  const thousand = await buildLongThread(store, loopHash, 1_000, root);
  await store.close();
  // grep searches every thread of a store: its 10,000 threads get a store of their own.
  const grepHome = join(home, "grep");
  const grepEnv = { UWF_HOME: grepHome };
  spawnSync(
    process.execPath,
    [uwfBin, "workflow", "add", join(root, "bench/loop.yaml"), "--format", "json"],
    { env: { ...env, ...grepEnv }, encoding: "utf8" },
  );
  const grepStore = await openStore({ home: grepHome });
  await buildManyShortThreads(grepStore, loopHash, 10_000, 3, root);
  await grepStore.close();
  const n0 = time(["-e", "0"]);
  const report = (label, ms, target) =>
    console.log(
      `${label.padEnd(44)} ${ms.toFixed(0).padStart(6)} ms  ${(ms / n0).toFixed(2).padStart(6)}× N0${target === undefined ? "" : `  (target ≤ ${target.toFixed(0)} ms = 2 × N0 + 1 s)`}`,
    );
  console.log(`N0 (node -e 0, no CA bundle): ${n0.toFixed(1)} ms; medians of ${runs}`);
  report("uwf thread verify, 200 steps", time([uwfBin, "thread", "verify", short]));
  report(
    "uwf thread verify, 10,000 steps",
    time([uwfBin, "thread", "verify", long]),
    2 * n0 + 1000,
  );
  const bundle = join(home, "thousand.uwf-bundle");
  report(
    "uwf thread export, 1,000 steps",
    time([uwfBin, "thread", "export", thousand, "-o", bundle, "--force"]),
  );
  // Into a fresh store each run, so that every import writes every node.
  let target = 0;
  report(
    "uwf thread import, 1,000 steps (fresh store)",
    time([uwfBin, "thread", "import", bundle], () => ({
      UWF_HOME: join(home, `target-${target++}`),
    })),
  );
  report(
    "uwf thread reroute, 1,000 steps (same file)",
    time([uwfBin, "thread", "reroute", thousand, "-w", join(root, "bench/loop.yaml")]),
  );
  report(
    "uwf thread grep, 10,000 threads × 3 steps",
    time([uwfBin, "thread", "grep", "needle", "--format", "json"], () => grepEnv),
  );
  report(
    "uwf thread grep -i -F, 10,000 threads × 3 steps",
    time([uwfBin, "thread", "grep", "-i", "-F", "NEEDLE", "--format", "json"], () => grepEnv),
  );

  // Record a solve-issue thread with uwf-mock (7 agent steps), then replay it.
  const solve = join(root, "examples/solve-issue.yaml");
  const mock = `${join(root, "packages/agent-mock/bin/uwf-mock.cjs")} --scenario ${join(root, "examples/scenarios/solve-issue.yaml")}`;
  const work = join(home, "work");
  mkdirSync(work);
  const newThread = () => {
    const started = spawnSync(
      process.execPath,
      [uwfBin, "thread", "start", solve, "-p", "Fix #42: empty config crashes", "--cwd", work],
      { env, encoding: "utf8" },
    );
    return started.stdout.trim();
  };
  let recorded = "";
  report(
    "solve-issue: thread exec, uwf-mock, 7 steps",
    time(() => {
      recorded = newThread();
      return [uwfBin, "thread", "exec", recorded, "-c", "20", "--agent", mock];
    }),
  );
  // Every run above recorded a new thread; the last one is replayed.
  report(
    "solve-issue: workflow test with uwf-replay",
    time([
      uwfBin,
      "workflow",
      "test",
      solve,
      "--from",
      recorded,
      "--replay",
      join(root, "packages/agent-mock/bin/uwf-replay.cjs"),
    ]),
  );
} finally {
  rmSync(home, { recursive: true, force: true });
}
