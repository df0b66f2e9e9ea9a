import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify as stringifyYaml } from "yaml";
import { agentHome } from "../agent-clis.js";
import type { FakeStep } from "../fake-llm/script.js";
import { type FakeLlm, type FakeLlmRequest, startFakeLlm } from "../fake-llm/server.js";
import { tempHome } from "../home.js";
import { type RunResult, runUwf } from "../run.js";
import type { AdapterConformanceOptions, ConformanceSandbox } from "./options.js";
import { CONFORMANCE_WORKFLOW } from "./workflow.js";

// The sandbox a case runs in: a temp UWF_HOME whose config.yaml points the adapter at a
// private fake model, a temp git repository as cwd, and the calls of the built uwf in them.

const TASK = "Conformance task: plan the work, then carry it out.";

export async function withSandbox<T>(
  options: AdapterConformanceOptions,
  script: { steps: FakeStep[] },
  body: (sb: ConformanceSandbox) => Promise<T>,
  agentSettings: { timeoutSeconds?: number; retry?: Record<string, number> } = {},
): Promise<T> {
  const temp = tempHome();
  const agent = agentHome();
  const fake = await startFakeLlm({ script });
  try {
    const sb: ConformanceSandbox = {
      root: temp.home,
      uwfHome: join(temp.home, "uwf-home"),
      repo: join(temp.home, "repo"),
      agent,
      fake,
    };
    mkdirSync(sb.uwfHome);
    mkdirSync(sb.repo);
    const git = spawnSync("git", ["init", "-q", sb.repo], { encoding: "utf8" });
    if (git.status !== 0) throw new Error(`git init failed: ${git.stderr || git.error?.message}`);
    writeFileSync(join(temp.home, "conformance.yaml"), CONFORMANCE_WORKFLOW);
    // uwf's retries of transient failures are off unless a case turns them on: an HTTP 500
    // suspends at once (kind retry) instead of waiting out the default backoff.
    writeConfig(sb, options, agentSettings.timeoutSeconds ?? 120, agentSettings.retry);
    options.prepare?.(sb);
    const result = await body(sb);
    checkKeyReachedModel(fake);
    return result;
  } finally {
    await fake.close();
    agent.cleanup();
    temp.cleanup();
  }
}

/** The provider's key in config.yaml: the one every request to the model must carry. */
const CONFORMANCE_KEY = "fake-conformance-key-R8V";

/**
 * Every request that reached the model carried the key config.yaml gives the provider, where
 * its API puts it (`Authorization`, `x-api-key`, `x-goog-api-key`, or the URL): the adapter
 * handed uwf's key to its agent, and no key of its own or of the environment stood in for it.
 */
function checkKeyReachedModel(fake: FakeLlm): void {
  const keyless = modelRequests(fake).filter(
    (r) => !r.url.includes(CONFORMANCE_KEY) && !JSON.stringify(r.headers).includes(CONFORMANCE_KEY),
  );
  assert.deepEqual(
    keyless.map((r) => `${r.method} ${r.url}`),
    [],
    "requests to the model without the provider's key from config.yaml",
  );
}

function writeConfig(
  sb: ConformanceSandbox,
  options: AdapterConformanceOptions,
  timeoutSeconds: number,
  retry: Record<string, number> = { maxRetries: 0 },
): void {
  const config = {
    providers: {
      fake: {
        api: options.provider.api,
        baseUrl: options.baseUrl?.(sb.fake) ?? sb.fake.baseUrl,
        apiKey: CONFORMANCE_KEY,
      },
    },
    models: { fake: { provider: "fake", name: options.provider.model } },
    agents: {
      conformance: {
        command: options.command,
        args: [...(options.args ?? []), ...(options.noRetryArgs ?? [])],
        // uwf passes it to the adapter as `--model fake`.
        model: "fake",
        timeoutSeconds,
      },
    },
    defaultAgent: "conformance",
    retry,
  };
  writeFileSync(join(sb.uwfHome, "config.yaml"), stringifyYaml(config), { mode: 0o600 });
}

function uwfEnv(
  sb: ConformanceSandbox,
  options: AdapterConformanceOptions,
): Record<string, string> {
  return { ...sb.agent.env, ...(options.env?.(sb) ?? {}) };
}

export function uwf(
  sb: ConformanceSandbox,
  options: AdapterConformanceOptions,
  args: string[],
): Promise<RunResult> {
  return runUwf(args, {
    home: sb.uwfHome,
    cwd: sb.repo,
    env: uwfEnv(sb, options),
    timeoutMs: 120_000,
  });
}

export async function uwfJson<T>(
  sb: ConformanceSandbox,
  options: AdapterConformanceOptions,
  args: string[],
): Promise<T> {
  const result = await uwf(sb, options, [...args, "--format", "json"]);
  expectExit(result, 0, `uwf ${args.join(" ")}`);
  return JSON.parse(result.stdout) as T;
}

export async function startThread(
  sb: ConformanceSandbox,
  options: AdapterConformanceOptions,
): Promise<string> {
  const workflow = join(sb.root, "conformance.yaml");
  const doc = await uwfJson<{ thread: string }>(sb, options, [
    "thread",
    "start",
    workflow,
    "-p",
    TASK,
    "--cwd",
    sb.repo,
  ]);
  return doc.thread;
}

export function expectExit(result: RunResult, code: number, what: string): void {
  if (result.code === code) return;
  throw new assert.AssertionError({
    message: `${what} exited ${result.code ?? result.signal}${result.timedOut ? " (timed out)" : ""}, expected ${code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`,
    actual: result.code,
    expected: code,
  });
}

/** The requests that asked the model for a reply (the fake numbers their turn). */
export function modelRequests(fake: FakeLlm): FakeLlmRequest[] {
  return fake.requests().filter((r) => typeof r.served.turn === "number");
}

export function describeRequests(fake: FakeLlm): string {
  return fake
    .requests()
    .map((r) => `${r.method} ${r.url} → ${JSON.stringify(r.served)}`)
    .join("; ");
}
