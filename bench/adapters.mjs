#!/usr/bin/env node
// Adapter overhead over the bare agent CLI (issue 7): for uwf-claude-code and uwf-codex, the
// median wall time of one adapter run (context from the chain, prompt, the CLI, extraction, the
// stored step) against the same CLI run alone with exactly the invocation the adapter made
// (argv, environment, prompt on stdin), both answered by the same fake model reply. Prints
// each as × the CLI alone, and both against N0 (`node -e 0`). Run after `pnpm build` with the
// pinned CLIs installed (`node scripts/agent-clis.mjs`): `pnpm bench:adapters` (BENCH_RUNS=9).
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const { startFakeLlm } = await import(`${root}packages/test-utils/dist/index.js`);
const runs = Number(process.env.BENCH_RUNS ?? 9);
const clis = join(
  process.env.UWF_AGENT_CLIS_DIR ?? join(root, "test/agent-clis"),
  "node_modules/.bin",
);
const node = process.execPath;

const WORKFLOW = `name: bench-one
roles:
  worker:
    goal: Answer once.
    frontmatter:
      type: object
      properties:
        $status: { const: done }
        summary: { type: string }
      required: [$status, summary]
graph:
  $START:
    new: { role: worker, prompt: "Go." }
    resume: { role: worker, prompt: "Go again." }
  worker:
    done: { role: $END, prompt: "Finished." }
`;

const ADAPTERS = [
  {
    name: "uwf-claude-code",
    cli: "claude",
    bin: "packages/agent-claude-code/bin/uwf-claude-code.cjs",
    binEnv: "UWF_CLAUDE_BIN",
    provider: (fake) => ({ api: "anthropic", baseUrl: fake.url }),
    model: "claude-fake",
  },
  {
    name: "uwf-codex",
    cli: "codex",
    bin: "packages/agent-codex/bin/uwf-codex.cjs",
    binEnv: "UWF_CODEX_BIN",
    provider: (fake) => ({ api: "openai-responses", baseUrl: fake.baseUrl }),
    model: "gpt-5.5",
  },
];

function median(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Run a process to its end and time it. Asynchronous: the fake model answers from this same
 * process, so a synchronous spawn would leave the CLI waiting on it forever.
 */
function timed(command, args, options) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { ...options, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdin.end(options.input ?? "");
    child.on("error", reject);
    child.on("close", (status) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (status !== 0) {
        reject(new Error(`${command} ${args.join(" ")} exited ${status}:\n${stderr}\n${stdout}`));
      } else resolve({ ms, stdout });
    });
  });
}

function n0Run() {
  const started = process.hrtime.bigint();
  spawnSync(node, ["-e", "0"]);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const n0 = median(Array.from({ length: runs }, n0Run));
console.log(`N0 (node -e 0): ${n0.toFixed(1)} ms; ${runs} runs per figure (median)`);
console.log("adapter | CLI alone | adapter run | × CLI alone | adapter overhead");
console.log("------- | --------- | ----------- | ----------- | ----------------");

const fake = await startFakeLlm({});
try {
  for (const adapter of ADAPTERS) {
    const dir = mkdtempSync(join(tmpdir(), `uwf-bench-${adapter.cli}-`));
    try {
      const home = join(dir, "uwf-home");
      const agentHome = join(dir, "home");
      const work = join(dir, "work");
      for (const d of [home, agentHome, work, join(agentHome, ".codex")])
        mkdirSync(d, { recursive: true });
      writeFileSync(join(dir, "bench-one.yaml"), WORKFLOW);
      writeFileSync(
        join(home, "config.yaml"),
        JSON.stringify({
          providers: { fake: { ...adapter.provider(fake), apiKey: "fake-key" } },
          models: { fake: { provider: "fake", name: adapter.model } },
        }),
      );
      const baseEnv = {
        PATH: process.env.PATH,
        HOME: agentHome,
        TMPDIR: dir,
        UWF_HOME: home,
        CODEX_HOME: join(agentHome, ".codex"),
      };
      const uwf = (...args) =>
        timed(node, [join(root, "packages/cli/bin/uwf.cjs"), ...args], { env: baseEnv, cwd: work });
      const thread = JSON.parse(
        (
          await uwf(
            "--format",
            "json",
            "thread",
            "start",
            join(dir, "bench-one.yaml"),
            "-p",
            "Say hello.",
            "--cwd",
            work,
          )
        ).stdout,
      ).thread;
      const adapterArgs = [
        join(root, adapter.bin),
        "--model",
        "fake",
        "--thread",
        thread,
        "--role",
        "worker",
        "--prompt",
        "Go.",
      ];
      // Calibration: record exactly how the adapter runs the CLI.
      const record = join(dir, "record.json");
      writeFileSync(join(dir, "real-cli"), join(clis, adapter.cli));
      await timed(node, adapterArgs, {
        cwd: work,
        env: { ...baseEnv, [adapter.binEnv]: join(root, "bench/record-cli.mjs") },
      });
      const recorded = JSON.parse(readFileSync(record, "utf8"));
      const adapterEnv = { ...baseEnv, [adapter.binEnv]: join(clis, adapter.cli) };
      const alone = [];
      const wrapped = [];
      for (let i = 0; i <= runs; i++) {
        const a = (
          await timed(join(clis, adapter.cli), recorded.args, {
            cwd: recorded.cwd,
            env: recorded.env,
            input: recorded.stdin,
          })
        ).ms;
        const w = (await timed(node, adapterArgs, { cwd: work, env: adapterEnv })).ms;
        if (i > 0) {
          alone.push(a);
          wrapped.push(w);
        }
      }
      const cli = median(alone);
      const full = median(wrapped);
      console.log(
        `${adapter.name} | ${cli.toFixed(0)} ms (${(cli / n0).toFixed(2)}× N0) | ${full.toFixed(0)} ms | ${(full / cli).toFixed(2)}× | +${(full - cli).toFixed(0)} ms (${((full - cli) / n0).toFixed(2)}× N0)`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
} finally {
  await fake.close();
}
