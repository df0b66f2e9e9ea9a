// Steps per second with many `uwf thread exec` in flight on one store: three-step threads of the
// hosts-relay workflow, uwf-mock playing every role, a fixed number of execs running at once
// until every thread is done. Shared by `pnpm bench:stores` and `pnpm bench:scale`. Run after
// `pnpm build`.
import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const node = process.execPath;
const uwfBin = join(root, "packages/cli/bin/uwf.cjs");
const mockBin = join(root, "packages/agent-mock/bin/uwf-mock.cjs");
const STEPS_A_THREAD = 3;

/**
 * The `relay` agent for a home's config.yaml `agents:`: uwf-mock answering each hosts-relay
 * role in turn (its scenario is written into `home`).
 */
export function relayAgent(home) {
  const scenario = join(home, "relay-scenario.json");
  writeFileSync(
    scenario,
    JSON.stringify({
      steps: [
        { role: "planner", output: { $status: "planned", step: 1 } },
        { role: "worker", output: { $status: "done", step: 2 } },
        { role: "reviewer", output: { $status: "approved", step: 3 } },
      ],
    }),
  );
  return { command: node, args: [mockBin, "--scenario", scenario] };
}

function uwfSync(env, cwd, ...args) {
  const result = spawnSync(node, [uwfBin, ...args], { env, cwd, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`uwf ${args.join(" ")} failed:\n${result.stderr}`);
  return result.stdout.trim();
}

function runUwf(env, cwd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [uwfBin, ...args], { env, cwd, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`uwf ${args.join(" ")} exited ${code}:\n${stderr}`)),
    );
  });
}

/**
 * Median steps per second over `runs` runs, each of `threads` fresh three-step threads with
 * `inFlight` execs at once. `env` is a home whose config.yaml names the `relay` agent
 * (`relayAgent`); every exec must succeed.
 */
export async function relayThroughput({ env, cwd, threads, inFlight, runs }) {
  uwfSync(env, cwd, "workflow", "add", join(root, "bench/hosts-relay.yaml"));
  const samples = [];
  for (let r = 0; r < runs; r++) {
    const ids = Array.from({ length: threads }, (_, i) =>
      uwfSync(env, cwd, "thread", "start", "hosts-relay", "-p", `bench ${r}.${i}`),
    );
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < ids.length) {
          const id = ids[next++];
          await runUwf(env, cwd, ["thread", "exec", id, "-c", "20", "--agent", "relay"]);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    samples.push((ids.length * STEPS_A_THREAD) / seconds);
  }
  return [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)];
}
