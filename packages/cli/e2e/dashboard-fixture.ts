import { request } from "node:http";
import { join } from "node:path";
import {
  type MockScenarioStep,
  REPO_ROOT,
  runUwf,
  type StartedProcess,
  sleep,
  startUwf,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";

/** The dashboard tests' workflow: planner (may ask) → developer → reviewer (may loop) → $END. */
export const SHIP_FEATURE = join(
  REPO_ROOT,
  "packages/cli/e2e/fixtures/dashboard/ship-feature.yaml",
);

export interface RunningDashboard {
  process: StartedProcess;
  /** The URL printed, with the token. */
  url: string;
  origin: string;
  port: number;
  token: string;
  stop(): Promise<number | null>;
}

/** Start the built `uwf dashboard` (with more `args`, and `env`) and wait for the URL it prints. */
export async function startDashboard(
  home: string,
  args: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<RunningDashboard> {
  // It serves until stopped: the default 30 s limit of a test's process is not for it.
  const proc = startUwf(["dashboard", ...args], { home, env, timeoutMs: 600_000 });
  let url: string | undefined;
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await sleep(25)) {
    url = /http:\/\/127\.0\.0\.1:\d+\/\?token=\S+/.exec(proc.stderr())?.[0];
    if (url) break;
    if (proc.child.exitCode !== null) break;
  }
  if (!url) throw new Error(`uwf dashboard printed no URL:\n${proc.stderr()}`);
  const parsed = new URL(url);
  return {
    process: proc,
    url,
    origin: parsed.origin,
    port: Number(parsed.port),
    token: parsed.searchParams.get("token")!,
    async stop() {
      proc.child.kill("SIGINT");
      return (await proc.done).code;
    },
  };
}

/** The agent option of a mock scenario. */
export function mockAgent(scenario: string): string {
  return `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`;
}

/** Start a ship-feature thread and run it through `steps` (all of them, or up to `count`). */
export async function threadThrough(
  home: string,
  name: string,
  prompt: string,
  steps: MockScenarioStep[],
  count = steps.length,
): Promise<string> {
  const uwf = (...args: string[]) => runUwf(args, { home });
  const thread = (await uwf("thread", "start", "ship-feature", "-p", prompt)).stdout.trim();
  const scenario = writeScenario(home, steps, `${name}.yaml`);
  if (count > 0) {
    const run = await uwf(
      "thread",
      "exec",
      thread,
      "-c",
      String(count),
      "--agent",
      mockAgent(scenario),
    );
    if (run.code !== 0) throw new Error(`exec failed: ${run.stderr}`);
  }
  return thread;
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A plain HTTP request with exactly these headers (fetch would not let a test set Host). */
export function http(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}
