#!/usr/bin/env node
// `uwf thread rebase` of a 50-step thread whose workflow edit changes step 40: how many steps it
// reuses, and the wall and CPU time (user + sys of the uwf process and every agent it starts,
// from /usr/bin/time) of the dry run and of the rebase that runs the 11 changed steps with
// uwf-mock, against running all 50 again. Ratios to a bare `node -e 0` (N0) in the same run
// (DESIGN §14). Run after `pnpm build`: `pnpm bench:rebase`. BENCH_RUNS sets the samples per
// figure (median reported); BENCH_STORE=postgres://… runs it on PostgreSQL.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const uwfBin = join(root, "packages/cli/bin/uwf.cjs");
const mockBin = join(root, "packages/agent-mock/bin/uwf-mock.cjs");
const runs = Number(process.env.BENCH_RUNS ?? 3);
const STEPS = 50;
const CHANGED_AT = 40;

// `early` loops until step 39, `late` from step 40 to the end: editing `late` changes step 40.
const workflow = (lateProcedure) => `name: long
roles:
  early:
    goal: Count on.
    frontmatter:
      type: object
      required: [$status, n]
      properties: { $status: { enum: [again, switch] }, n: { type: integer } }
  late:
    goal: Count to the end.
    procedure: ${lateProcedure}
    frontmatter:
      type: object
      required: [$status, n]
      properties: { $status: { enum: [again, done] }, n: { type: integer } }
graph:
  $START:
    new: { role: early, prompt: "Start counting." }
    resume: { role: early, prompt: "Count again." }
  early:
    again: { role: early, prompt: "Go on from {{{n}}}." }
    switch: { role: late, prompt: "Switch at {{{n}}}." }
  late:
    again: { role: late, prompt: "Go on from {{{n}}}." }
    done: { role: $END, prompt: "Counted to {{{n}}}." }
`;

function scenario() {
  const steps = [];
  for (let n = 1; n <= STEPS; n++) {
    const role = n < CHANGED_AT ? "early" : "late";
    const status = n === CHANGED_AT - 1 ? "switch" : n === STEPS ? "done" : "again";
    steps.push(`  - { role: ${role}, output: { $status: ${status}, n: ${n} } }`);
  }
  return `steps:\n${steps.join("\n")}\n`;
}

const work = mkdtempSync(join(tmpdir(), "uwf-bench-rebase-"));
const home = join(work, "home");
const env = { ...process.env, UWF_HOME: home };
if (process.env.BENCH_STORE) env.UWF_STORE = process.env.BENCH_STORE;
const timesFile = join(work, "time.txt");

/** Wall ms and CPU ms (the process and its children) of `node args`; it must exit 0. */
function measure(args) {
  const result = spawnSync(
    "/usr/bin/time",
    ["-o", timesFile, "-f", "%e %U %S", process.execPath, ...args],
    { env, cwd: work, stdio: ["ignore", "pipe", "pipe"], timeout: 600_000 },
  );
  if (result.status !== 0) {
    throw new Error(`node ${args.join(" ")} failed (${result.status}):\n${result.stderr}`);
  }
  const [wall, user, sys] = readFileSync(timesFile, "utf8").trim().split("\n").at(-1).split(" ");
  return {
    wallMs: Number(wall) * 1000,
    cpuMs: (Number(user) + Number(sys)) * 1000,
    stdout: result.stdout.toString(),
  };
}

function median(samples, key) {
  const sorted = samples.map((s) => s[key]).sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const uwf = (...args) => [uwfBin, ...args];
try {
  mkdirSync(join(work, "v2"));
  writeFileSync(join(work, "long.yaml"), workflow("Count by one."));
  writeFileSync(join(work, "v2", "long.yaml"), workflow("Count by one, carefully."));
  writeFileSync(join(work, "scenario.yaml"), scenario());
  const agent = `${process.execPath} ${mockBin} --scenario ${join(work, "scenario.yaml")}`;

  const n0 = median(
    Array.from({ length: 5 }, () => measure(["-e", "0"])),
    "wallMs",
  );
  const fromScratch = [];
  let thread = "";
  for (let i = 0; i < runs; i++) {
    thread = measure(uwf("thread", "start", "long.yaml", "-p", "count")).stdout.trim();
    fromScratch.push(
      measure(uwf("thread", "exec", thread, "-c", String(STEPS), "--agent", agent, "-q")),
    );
  }
  const dry = [];
  let plan = null;
  for (let i = 0; i < runs; i++) {
    const run = measure(
      uwf("thread", "rebase", thread, "-w", "v2/long.yaml", "--dry-run", "--format", "json"),
    );
    plan = JSON.parse(run.stdout);
    dry.push(run);
  }
  const rebase = [];
  let done = null;
  for (let i = 0; i < runs; i++) {
    const run = measure(
      uwf("thread", "rebase", thread, "-w", "v2/long.yaml", "-q", "--format", "json"),
    );
    done = JSON.parse(run.stdout);
    rebase.push(run);
  }

  // The reused steps are the recorded nodes: the rebased thread's first steps have their hashes.
  const listed = JSON.parse(
    measure(uwf("step", "list", done.rebased.thread, "--format", "json")).stdout,
  ).steps.map((step) => step.hash);
  const kept = plan.reused.filter((step, i) => listed[i] === step.hash).length;

  console.log(`uwf thread rebase: a ${STEPS}-step thread, the edit changes step ${CHANGED_AT}`);
  console.log(
    `  reused ${plan.reused.length} steps (${kept} with their recorded hashes); first change at step ${plan.firstChange.step} (${plan.firstChange.roleChange.role}: ${plan.firstChange.roleChange.fields.join(", ")}); the rebase ran ${done.run.steps.length} steps (${done.run.status})`,
  );
  console.log(
    `  N0 (node -e 0): ${n0.toFixed(0)} ms; medians of ${runs} runs, store: ${process.env.BENCH_STORE ? "postgres" : "filesystem"}`,
  );
  const row = (name, samples) => {
    const wall = median(samples, "wallMs");
    const cpu = median(samples, "cpuMs");
    console.log(
      `  ${name.padEnd(44)} wall ${wall.toFixed(0).padStart(6)} ms (${(wall / n0).toFixed(1).padStart(5)}× N0)  cpu ${cpu.toFixed(0).padStart(6)} ms`,
    );
  };
  row("thread rebase --dry-run", dry);
  row(
    `thread rebase (reuse ${CHANGED_AT - 1}, run ${STEPS - CHANGED_AT + 1} with uwf-mock)`,
    rebase,
  );
  row(`thread exec -c ${STEPS} from scratch (uwf-mock)`, fromScratch);
} finally {
  rmSync(work, { recursive: true, force: true });
}
