#!/usr/bin/env node
// Times whole processes against a bare `node -e 0` (N0) and prints ratios: absolute
// milliseconds depend on the machine, ratios much less. Each figure's N0 runs alternate with
// its own samples, so that a machine slowing down during the bench skews no ratio. Run after
// `pnpm build`: `pnpm bench`. Every figure is measured twice: first, the headline, with
// NODE_EXTRA_CA_CERTS unset (most users do not set it), then with it set as on these machines,
// where Node 20 parses the whole CA bundle at every start (~100 ms that hides uwf's own
// cost). Targets are judged on the headline only. BENCH_RUNS sets the samples per figure
// (median reported); BENCH_LARGE=0 skips the 10,000-step and 10,000-thread stores;
// BENCH_CA=0 skips the second pass.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildLongThread, buildManyThreads } from "./fixtures.mjs";

// The parent runs this script twice, without and with the CA bundle; each pass is a child.
if (process.env.BENCH_PASS === undefined) {
  const bundle = process.env.NODE_EXTRA_CA_CERTS || "/etc/ssl/certs/ca-certificates.crt";
  const passes = [{ label: "without NODE_EXTRA_CA_CERTS (headline)", ca: null }];
  if (process.env.BENCH_CA !== "0" && existsSync(bundle)) {
    passes.push({ label: `with NODE_EXTRA_CA_CERTS=${bundle}`, ca: bundle });
  }
  let status = 0;
  for (const pass of passes) {
    console.log(`\n=== ${pass.label} ===`);
    const passEnv = { ...process.env, BENCH_PASS: pass.ca ? "ca" : "headline" };
    delete passEnv.NODE_EXTRA_CA_CERTS;
    if (pass.ca) passEnv.NODE_EXTRA_CA_CERTS = pass.ca;
    const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], {
      env: passEnv,
      stdio: "inherit",
    });
    if (pass.ca === null) status = run.status ?? 1;
  }
  process.exit(status);
}
const headline = process.env.BENCH_PASS === "headline";

const { openStore } = await import(
  fileURLToPath(new URL("../packages/store/dist/index.js", import.meta.url))
);

const root = fileURLToPath(new URL("..", import.meta.url));
const node = process.execPath;
const uwfBin = join(root, "packages/cli/bin/uwf.cjs");
const mockBin = join(root, "packages/agent-mock/bin/uwf-mock.cjs");
const benchAdapter = join(root, "bench/adapter.mjs");
const runs = Number(process.env.BENCH_RUNS ?? 15);
const large = process.env.BENCH_LARGE !== "0";
const home = mkdtempSync(join(tmpdir(), "uwf-bench-"));
const env = { ...process.env, UWF_HOME: home };
const failures = [];

/** Wall time of one run of `node args` in `runEnv`, which must exit with `status`. */
function timeOnce(args, runEnv, status) {
  const started = process.hrtime.bigint();
  const result = spawnSync(node, args, {
    env: runEnv,
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    // A run that hangs (an exec waiting for a step that never ends) fails the bench.
    timeout: 60_000,
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== status)
    throw new Error(`node ${args.join(" ")} failed (${result.status}):\n${result.stderr}`);
  return ms;
}

const median = (samples) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];

/**
 * Median wall time of `runs` runs (after one warm-up); `argsFor(i)` gives each run's argv and
 * `homeFor(i)`, when given, its UWF_HOME; `extraEnv` adds variables. Each run must exit with
 * `status`. A `node -e 0` runs after each run: `n0` is their median, the baseline this figure's
 * ratio is taken against, measured at the same time as it (wall time on a shared machine drifts
 * within a bench by more than the differences it reports).
 */
function time(argsFor, homeFor, status = 0, extraEnv = {}) {
  const samples = [];
  const bare = [];
  for (let i = 0; i <= runs; i++) {
    const runEnv = { ...env, ...(homeFor ? { UWF_HOME: homeFor(i) } : {}), ...extraEnv };
    const ms = timeOnce(argsFor(i), runEnv, status);
    const n0 = timeOnce(["-e", "0"], env, 0);
    if (i > 0) {
      samples.push(ms);
      bare.push(n0);
    }
  }
  return { ms: median(samples), n0: median(bare) };
}

/**
 * Commands run in turn, then a `node -e 0`, each round (after one warm-up round): each
 * command's median against the rounds' N0, and every round's samples (`bare`: the N0s), so
 * that a difference between two commands can be the median of per-round differences, which
 * the machine drifting between two series cannot skew.
 */
function timeRounds(argsFors) {
  const samples = argsFors.map(() => []);
  const bare = [];
  for (let i = 0; i <= runs; i++) {
    const ms = argsFors.map((argsFor) => timeOnce(argsFor(i), env, 0));
    const n0 = timeOnce(["-e", "0"], env, 0);
    if (i === 0) continue;
    for (const [j, one] of ms.entries()) samples[j].push(one);
    bare.push(n0);
  }
  const n0 = median(bare);
  return { figures: samples.map((one) => ({ ms: median(one), n0 })), samples, bare, n0 };
}

const uwf = (...args) =>
  execFileSync(node, [uwfBin, ...args], { env, cwd: root })
    .toString()
    .trim();

/** Print a figure against the N0 measured with it; judge it against `target` in the headline. */
function report(name, { ms, n0 }, target) {
  const ratio = ms / n0;
  let verdict = "";
  if (target !== undefined && headline) {
    verdict = ratio <= target ? `  ✓ ≤ ${target}×` : `  ✗ over ${target}×`;
    if (ratio > target) failures.push(name);
  }
  console.log(
    `${name.padEnd(58)} ${ms.toFixed(1).padStart(7)} ms ${ratio.toFixed(2).padStart(6)}× N0${verdict}`,
  );
}

try {
  const n0 = time(() => ["-e", "0"]).ms;
  console.log(
    `N0 = node -e 0: ${n0.toFixed(1)} ms (NODE_EXTRA_CA_CERTS ${process.env.NODE_EXTRA_CA_CERTS ? "set" : "unset"}); medians of ${runs} runs\n`,
  );

  report(
    "uwf --version",
    time(() => [uwfBin, "--version"]),
    1.1,
  );
  report(
    "uwf workflow validate examples/solve-issue.yaml",
    time(() => [uwfBin, "workflow", "validate", "examples/solve-issue.yaml"]),
    2,
  );
  report(
    "  the same with no compiled validators cached yet",
    time(
      () => [uwfBin, "workflow", "validate", "examples/solve-issue.yaml"],
      (i) => join(home, `cold-${i}`),
    ),
  );
  const text = uwf("cas", "put-text", "hello bench");
  report(
    "uwf cas put-text",
    time((i) => [uwfBin, "cas", "put-text", `hello bench ${i}`]),
  );
  report(
    "uwf cas get",
    time(() => [uwfBin, "cas", "get", text]),
    1.5,
  );
  report(
    "  the same without the code cache (UWF_CODE_CACHE=0)",
    time(() => [uwfBin, "cas", "get", text], undefined, 0, { UWF_CODE_CACHE: "0" }),
  );

  // One step with uwf-mock, each run on a fresh thread.
  const scenario = join(home, "hello-scenario.yaml");
  writeFileSync(
    scenario,
    "steps:\n  - role: greeter\n    output: { $status: done, greeting: hi }\n",
  );
  const mockAgent = `${node} ${mockBin} --scenario ${scenario}`;
  uwf("workflow", "add", "examples/hello.yaml");
  const fresh = Array.from({ length: runs + 1 }, () =>
    uwf("thread", "start", "hello", "-p", "bench"),
  );
  // The whole step, the adapter alone on a thread that stays at its first step (adapters never
  // move the head), and the floor (bench/floor.cjs: a bare Node parent spawning `node -e 0`),
  // run in turn: the overheads are medians of per-round differences.
  const still = uwf("thread", "start", "hello", "-p", "bench");
  const step = timeRounds([
    (i) => [uwfBin, "thread", "exec", fresh[i], "--agent", mockAgent],
    () => [
      mockBin,
      "--scenario",
      scenario,
      "--thread",
      still,
      "--role",
      "greeter",
      "--prompt",
      "x",
    ],
    () => [join(root, "bench/floor.cjs")],
  ]);
  const [whole, adapter, floor] = step.figures;
  const [wholeRuns, adapterRuns, floorRuns] = step.samples;
  const paired = (each) => ({ ms: median(wholeRuns.map((_, i) => each(i))), n0: step.n0 });
  report("uwf thread exec, one uwf-mock step (whole step)", whole, 3);
  report("  uwf-mock alone", adapter, 1.5);
  report(
    "  engine overhead (whole step − adapter alone)",
    paired((i) => wholeRuns[i] - adapterRuns[i]),
    1.5,
  );
  report("  floor, in sequence: node, then `node -e 0` (floor.cjs)", floor);
  report(
    "  engine overhead at the floor (floor − N0)",
    paired((i) => floorRuns[i] - step.bare[i]),
  );
  report(
    "  engine overhead beyond the floor",
    paired((i) => wholeRuns[i] - adapterRuns[i] - (floorRuns[i] - step.bare[i])),
  );
  report(
    "uwf thread show (a one-step thread)",
    time(() => [uwfBin, "thread", "show", fresh[0]]),
    1.5,
  );

  // Each adapter's own start, before it does any work: `--help`.
  for (const [name, bin] of [
    ["uwf-mock", "agent-mock/bin/uwf-mock.cjs"],
    ["uwf-claude-code", "agent-claude-code/bin/uwf-claude-code.cjs"],
    ["uwf-codex", "agent-codex/bin/uwf-codex.cjs"],
    ["uwf-acp", "agent-acp/bin/uwf-acp.cjs"],
    ["uwf-hermes", "agent-acp/bin/uwf-hermes.cjs"],
    ["uwf-builtin", "agent-builtin/bin/uwf-builtin.cjs"],
  ]) {
    report(
      `${name} --help (its own start)`,
      time(() => [join(root, "packages", bin), "--help"]),
      1.5,
    );
  }

  // A model-calling adapter's step: uwf-builtin alone, one answer from the fake model server.
  const fakeServer = spawn(
    node,
    [join(root, "bench/fake-model.mjs"), "---\n$status: done\ngreeting: hi\n---\n"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  try {
    const [line] = await once(fakeServer.stdout, "data");
    const builtinHome = join(home, "builtin");
    mkdirSync(builtinHome);
    writeFileSync(
      join(builtinHome, "config.yaml"),
      JSON.stringify({
        providers: { fake: { baseUrl: line.toString().trim(), apiKey: "fake-key" } },
        models: { fake: { provider: "fake", name: "fake-model" } },
      }),
    );
    const builtinEnv = { ...env, UWF_HOME: builtinHome };
    execFileSync(node, [uwfBin, "workflow", "add", "examples/hello.yaml"], {
      env: builtinEnv,
      cwd: root,
    });
    const asked = execFileSync(node, [uwfBin, "thread", "start", "hello", "-p", "bench"], {
      env: builtinEnv,
      cwd: root,
    })
      .toString()
      .trim();
    report(
      "uwf-builtin alone, one answer from the fake model",
      time(
        () => [
          join(root, "packages/agent-builtin/bin/uwf-builtin.cjs"),
          "--model",
          "fake",
          "--thread",
          asked,
          "--role",
          "greeter",
          "--prompt",
          "x",
        ],
        () => builtinHome,
      ),
    );
  } finally {
    fakeServer.kill();
  }

  // Most users have a config.yaml (`uwf setup` writes one), which every store-opening process
  // reads: the same two reads with one.
  const configFile = join(home, "config.yaml");
  writeFileSync(
    configFile,
    [
      "providers:",
      "  anthropic: { baseUrl: https://api.anthropic.com, apiKeyEnv: ANTHROPIC_API_KEY }",
      "models:",
      "  sonnet: { provider: anthropic, name: claude-sonnet-4-5 }",
      "agents:",
      "  claude: { command: uwf-claude-code, model: sonnet }",
      `  mock: { command: ${JSON.stringify(mockAgent)} }`,
      "defaultAgent: claude",
      "",
    ].join("\n"),
  );
  report(
    "uwf cas get, with a config.yaml",
    time(() => [uwfBin, "cas", "get", text]),
  );
  report(
    "uwf thread show, with a config.yaml",
    time(() => [uwfBin, "thread", "show", fresh[0]]),
  );
  rmSync(configFile);

  // step list reads the whole chain: a 200-step thread.
  const loopHash = JSON.parse(uwf("workflow", "add", "bench/loop.yaml", "--format", "json")).hash;
  const listStore = await openStore({ home });
  const twoHundred = await buildLongThread(listStore, loopHash, 200, root);
  await listStore.close();
  report(
    "uwf step list of a 200-step thread",
    time(() => [uwfBin, "step", "list", twoHundred]),
  );

  // A second exec on a thread another exec holds exits 5 without waiting for the step. The
  // tests prove the order (the step waits at a gate); this says how long "at once" is.
  const gate = join(home, "busy-gate");
  const gated = join(home, "gated-scenario.yaml");
  writeFileSync(
    gated,
    `steps:\n  - role: greeter\n    wait_for: ${gate}\n    output: { $status: done, greeting: hi }\n`,
  );
  const gatedAgent = `${node} ${mockBin} --scenario ${gated}`;
  const busy = uwf("thread", "start", "hello", "-p", "bench");
  const holder = spawn(node, [uwfBin, "thread", "exec", busy, "--agent", gatedAgent], {
    env,
    stdio: "ignore",
  });
  const holderExited = once(holder, "exit");
  try {
    const deadline = Date.now() + 30_000;
    while (JSON.parse(uwf("thread", "show", busy, "--format", "json")).status !== "running") {
      if (Date.now() > deadline) throw new Error("the holding exec never started");
    }
    report(
      "uwf thread exec on a thread another exec holds (exit 5)",
      time(() => [uwfBin, "thread", "exec", busy, "--agent", gatedAgent], undefined, 5),
      2.5,
    );
  } finally {
    writeFileSync(gate, "");
    await holderExited;
  }

  if (large) {
    const agent = `${node} ${benchAdapter}`;
    const store = await openStore({ home });
    const short = [];
    for (let i = 0; i <= runs; i++) short.push(await buildLongThread(store, loopHash, 10, root));
    const longThread = await buildLongThread(store, loopHash, 10_000, root);
    // Alternately, so that load drifting during the series does not pass for a difference.
    // The long thread grows by one step per run: 10,000 … 10,015 steps.
    const {
      figures: [shortRun, longRun],
    } = timeRounds([
      (i) => [uwfBin, "thread", "exec", short[i], "--agent", agent],
      () => [uwfBin, "thread", "exec", longThread, "--agent", agent],
    ]);
    const [shortMs, longMs] = [shortRun.ms, longRun.ms];
    report("thread exec on a 10-step thread (bench adapter)", shortRun);
    report("thread exec on a 10,000-step thread (bench adapter)", longRun);
    const allowed = shortMs + Math.max(shortMs * 0.05, 2);
    const flat = longMs <= allowed;
    if (!flat) failures.push("flat cost per step");
    console.log(
      `  10,000 vs 10 steps: +${(longMs - shortMs).toFixed(1)} ms (allowed +${(allowed - shortMs).toFixed(1)} ms)  ${flat ? "✓" : "✗"}`,
    );

    const listHome = mkdtempSync(join(tmpdir(), "uwf-bench-list-"));
    try {
      execFileSync(node, [uwfBin, "workflow", "add", "examples/hello.yaml"], {
        env: { ...env, UWF_HOME: listHome },
      });
      const hash = JSON.parse(
        execFileSync(node, [uwfBin, "workflow", "show", "hello", "--format", "json"], {
          env: { ...env, UWF_HOME: listHome },
        }).toString(),
      ).hash;
      await buildManyThreads(await openStore({ home: listHome }), hash, 10_000, root);
      env.UWF_HOME = listHome;
      report(
        "uwf thread list over 10,000 threads",
        time(() => [uwfBin, "thread", "list"]),
        2.5,
      );
      env.UWF_HOME = home;
    } finally {
      rmSync(listHome, { recursive: true, force: true });
    }
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}

console.log(
  failures.length === 0 ? "\nall targets met" : `\ntargets missed: ${failures.join(", ")}`,
);
process.exitCode = failures.length === 0 ? 0 : 1;
