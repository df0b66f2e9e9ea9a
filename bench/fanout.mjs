#!/usr/bin/env node
// A 20-item fan-out of uwf-mock children (examples/fan-out-review.yaml with 20 files), timed
// as one `uwf thread exec` of the parent from the fan-out to the join, at concurrency 1 and 4.
// Each child is one mock step (a Node process), so the figure is uwf's own cost per child
// plus the adapter's start. Run after `pnpm build`: `pnpm bench:fanout`. BENCH_RUNS sets the
// samples per figure (median reported); BENCH_ITEMS the list's length.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const uwfBin = join(root, "packages/cli/bin/uwf.cjs");
const mockBin = join(root, "packages/agent-mock/bin/uwf-mock.cjs");
const runs = Number(process.env.BENCH_RUNS ?? 3);
const items = Number(process.env.BENCH_ITEMS ?? 20);

function uwf(home, args) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [uwfBin, ...args], {
    env: { ...process.env, UWF_HOME: home, HOME: home },
    cwd: home,
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 300_000,
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) {
    throw new Error(`uwf ${args.join(" ")} failed (${result.status}):\n${result.stderr}`);
  }
  return { ms, stdout: result.stdout.toString().trim() };
}

/** The example with `concurrency` changed, and its scenario planning `items` files. */
function fixture(dir, concurrency) {
  const name = `fanout-c${concurrency}`;
  const workflow = readFileSync(join(root, "examples/fan-out-review.yaml"), "utf8")
    .replace("name: fan-out-review", `name: ${name}`)
    .replace("concurrency: 4", `concurrency: ${concurrency}`);
  writeFileSync(join(dir, `${name}.yaml`), workflow);
  const files = Array.from({ length: items }, (_, i) => `{ path: src/f${i}.ts, why: check it }`);
  const scenario = readFileSync(join(root, "examples/scenarios/fan-out-review.yaml"), "utf8");
  const planned = scenario.replace(
    / {6}files:\n(?: {8}- .*\n)+/,
    `      files: [${files.join(", ")}]\n`,
  );
  writeFileSync(join(dir, `${name}.scenario.yaml`), planned);
  return { workflow: join(dir, `${name}.yaml`), scenario: join(dir, `${name}.scenario.yaml`) };
}

function sample(concurrency) {
  const home = mkdtempSync(join(tmpdir(), "uwf-bench-fanout-"));
  try {
    const { workflow, scenario } = fixture(home, concurrency);
    const agent = `${process.execPath} ${mockBin} --scenario ${scenario}`;
    const thread = uwf(home, ["thread", "start", workflow, "-p", "Review"]).stdout;
    uwf(home, ["thread", "exec", thread, "--agent", agent, "--quiet"]);
    const joined = uwf(home, ["thread", "exec", thread, "--quiet", "--format", "json"]);
    const doc = JSON.parse(joined.stdout);
    if (doc.fanouts?.[0]?.completed !== items)
      throw new Error(`fan-out did not join: ${joined.stdout}`);
    return joined.ms;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

console.log(`${items}-item fan-out of uwf-mock children, one exec from the fan-out to the join`);
for (const concurrency of [1, 4]) {
  const samples = Array.from({ length: runs }, () => sample(concurrency)).sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)];
  console.log(
    `concurrency ${concurrency}: ${median.toFixed(0).padStart(6)} ms (median of ${runs}), ${(median / items).toFixed(0)} ms per child`,
  );
}
