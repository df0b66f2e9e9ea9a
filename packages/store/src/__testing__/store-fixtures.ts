import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  emptyUsage,
  type StartPayload,
  type StepPayload,
  type ThreadPointer,
  type WorkflowPayload,
} from "@united-workforce/protocol";
import { encodeBase32, isUwfError, type UwfError } from "@united-workforce/util";
import type { Store } from "../api.js";
import type { Cas } from "../cas/cas.js";
import { delay } from "../fs/files.js";
import { openStore } from "../open-store.js";

/** For tests only: small builders and waits shared by the store's test files. */

/**
 * A thread id (a ULID) created at `ms`. Not `newUlid(ms)`: that one is monotonic, so after an
 * id of today it encodes today's time for any earlier instant.
 */
export function threadIdAt(ms: number): string {
  return (
    encodeBase32(BigInt(ms), 10) + encodeBase32(BigInt(`0x${randomBytes(10).toString("hex")}`), 16)
  );
}

/** A valid pointer of a new thread created at `createdAtMs` (its id encodes that instant). */
export function pointer(
  overrides: Partial<ThreadPointer> = {},
  createdAtMs = Date.UTC(2025, 0, 1),
): ThreadPointer {
  const createdAt = new Date(createdAtMs).toISOString();
  return {
    thread: threadIdAt(createdAtMs),
    workflow: "solve-issue",
    workflowHash: "0000000000001",
    start: "0000000000002",
    head: "0000000000002",
    status: "idle",
    currentRole: null,
    suspended: null,
    steps: 0,
    cwd: "/work",
    createdAt,
    updatedAt: createdAt,
    ...overrides,
  };
}

/** The UwfError a call fails with; fails the test if it succeeds or throws something else. */
export async function caught(run: () => unknown): Promise<UwfError> {
  try {
    await run();
  } catch (error) {
    if (isUwfError(error)) return error;
    throw error;
  }
  throw new Error("expected a UwfError, but the call succeeded");
}

/**
 * Poll `condition` until it holds. The deadline is generous and only turns a hang into a clear
 * failure: nothing asserts how long the wait took.
 */
export async function waitFor(
  condition: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await delay(10);
  }
}

/** The pid of a process that has exited and been reaped. */
export function deadPid(): number {
  const result = spawnSync(process.execPath, ["-e", "0"]);
  if (result.pid === undefined || result.status !== 0) throw new Error("`node -e 0` did not run");
  return result.pid;
}

/** What `thread exec` stores for a workflow run: a workflow, its start and two steps. */
export interface Chain {
  role: string;
  workflow: string;
  start: string;
  step1: StepNodes;
  step2: StepNodes;
}

export interface StepNodes {
  hash: string;
  output: string;
  body: string;
  detail: string;
  assembledPrompt: string;
}

/** Store a workflow with one role, its start node and two steps; `tag` makes the nodes unique. */
export async function storeChain(cas: Cas, tag = "plan"): Promise<Chain> {
  const role = await cas.putSchema({
    type: "object",
    required: ["$status"],
    properties: { $status: { type: "string" }, plan: { type: "string" } },
  });
  const workflow = await cas.put(cas.builtin("workflow"), {
    name: tag,
    roles: { planner: { frontmatter: role } },
    graph: { $START: { new: { role: "planner", prompt: "{{{prompt}}}" } } },
  } satisfies WorkflowPayload);
  const start = await cas.put(cas.builtin("start"), {
    workflow,
    prompt: `make a ${tag}`,
    cwd: "/tmp",
    createdAtMs: 1,
  } satisfies StartPayload);
  const storeStep = async (prev: string | null, n: number): Promise<StepNodes> => {
    const parts = {
      output: await cas.put(role, { $status: "done", plan: `${tag} ${n}` }),
      body: await cas.putText(`${tag} body ${n}`),
      detail: await cas.put(cas.builtin("detail"), { adapter: "uwf-mock", turns: [] }),
      assembledPrompt: await cas.putText(`${tag} prompt ${n}`),
    };
    const payload: StepPayload = {
      start,
      prev,
      role: "planner",
      ...parts,
      agent: "uwf-mock",
      edgePrompt: "go",
      cwd: "/tmp",
      startedAtMs: n,
      completedAtMs: n + 1,
      usage: emptyUsage(),
      attempts: 1,
    };
    return { hash: await cas.put(cas.builtin("step"), payload), ...parts };
  };
  const step1 = await storeStep(null, 1);
  const step2 = await storeStep(step1.hash, 2);
  return { role, workflow, start, step1, step2 };
}

/** Every node of a chain, its schema nodes included. */
export function chainNodes(cas: Cas, chain: Chain): string[] {
  const step = (nodes: StepNodes) => [
    nodes.hash,
    nodes.output,
    nodes.body,
    nodes.detail,
    nodes.assembledPrompt,
  ];
  return [
    chain.role,
    chain.workflow,
    chain.start,
    ...step(chain.step1),
    ...step(chain.step2),
    ...(["workflow", "start", "step", "text", "detail"] as const).map((kind) => cas.builtin(kind)),
  ];
}

/** A pointer to the head of a stored chain. */
export function chainPointer(chain: Chain, overrides: Partial<ThreadPointer> = {}): ThreadPointer {
  return pointer({
    workflow: "plan",
    workflowHash: chain.workflow,
    start: chain.start,
    head: chain.step2.hash,
    currentRole: "planner",
    steps: 2,
    ...overrides,
  });
}

/** A filesystem store in a fresh temp home (`uwf-<name>-…`), and how to close and remove it. */
export async function openTempStore(
  name: string,
): Promise<{ home: string; store: Store; remove(): Promise<void> }> {
  const home = mkdtempSync(join(tmpdir(), `uwf-${name}-`));
  const store = await openStore({ home });
  return {
    home,
    store,
    remove: async () => {
      await store.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
