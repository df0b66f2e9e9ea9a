import type { Runner } from "@united-workforce/engine";
import {
  type StepPayload,
  THREAD_STATUSES,
  type ThreadPointer,
  type ThreadStatus,
  type ThreadTreeDocument,
  type Usage,
  type WorkflowPayload,
} from "@united-workforce/protocol";
import type { ThreadListItem, ThreadQuery } from "@united-workforce/store";
import { UwfError } from "@united-workforce/util";
import { stepListEntry } from "../commands/step/list-entry.js";
import { threadListEntry } from "../commands/thread/list-entry.js";
import type { FamilyIndex } from "./family-index.js";

/**
 * What the pages and the JSON API show, read through the engine and store APIs the commands
 * use (never from the store's files). Each function answers one request.
 */

export const STATUS_FILTERS = ["all", "active", ...THREAD_STATUSES] as const;
const ACTIVE = ["idle", "running", "suspended"];
const HASH = /^[0-9A-HJKMNP-TV-Z]{13}$/;
const THREAD_ID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
export const PAGE_SIZE = 50;

export interface ThreadRow {
  thread: string;
  workflow: string;
  status: ThreadStatus;
  currentRole: string | null;
  steps: number;
  createdAt: string;
  updatedAt: string;
  /** The question of a suspended thread, or why it failed. */
  waiting: string | null;
  costUsd: number | null;
  /** Steps that reported no cost: with any, `costUsd` is a lower bound. */
  unknownCostSteps: number;
  problem: string | null;
}

export interface ThreadFilter {
  status: (typeof STATUS_FILTERS)[number];
  workflow: string;
  /** Words every shown thread contains (id, workflow, role, question). */
  text: string;
  offset: number;
}

export function parseFilter(params: URLSearchParams): ThreadFilter {
  const status = params.get("status") ?? "all";
  const offset = Number(params.get("offset") ?? "0");
  return {
    status: (STATUS_FILTERS as readonly string[]).includes(status)
      ? (status as ThreadFilter["status"])
      : "all",
    workflow: (params.get("workflow") ?? "").trim(),
    text: (params.get("q") ?? "").trim(),
    offset: Number.isSafeInteger(offset) && offset > 0 ? offset : 0,
  };
}

export async function listThreads(
  runner: Runner,
  filter: ThreadFilter,
): Promise<{ rows: ThreadRow[]; total: number }> {
  const query: ThreadQuery = {};
  if (filter.status === "active") query.statuses = ACTIVE;
  else if (filter.status !== "all") query.statuses = [filter.status];
  if (filter.workflow !== "") query.workflow = filter.workflow;
  if (filter.text === "") {
    const page = await runner.store.threads.list({
      ...query,
      limit: PAGE_SIZE,
      offset: filter.offset,
    });
    return { rows: page.items.map(toRow), total: page.total };
  }
  // The store filters by fields; words are matched here, over every thread the fields keep.
  const words = filter.text.toLowerCase().split(/\s+/);
  const all = (await runner.store.threads.list(query)).items.map(toRow);
  const kept = all.filter((row) => {
    const haystack = [
      row.thread,
      row.workflow,
      row.currentRole ?? "",
      row.waiting ?? "",
      row.status,
    ]
      .join(" ")
      .toLowerCase();
    return words.every((w) => haystack.includes(w));
  });
  return { rows: kept.slice(filter.offset, filter.offset + PAGE_SIZE), total: kept.length };
}

export function toRow(item: ThreadListItem): ThreadRow {
  const { pointer } = item;
  const entry = threadListEntry(item);
  return {
    thread: entry.thread,
    workflow: entry.workflow,
    status: entry.status,
    currentRole: entry.currentRole,
    steps: entry.steps,
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
    waiting: pointer?.status === "suspended" ? (pointer.suspended?.reason ?? null) : null,
    costUsd: pointer?.usage?.costUsd ?? null,
    unknownCostSteps: pointer?.unknownCostSteps ?? 0,
    problem: entry.problem ?? null,
  };
}

/** One thread's live status, as the list and the thread page refresh it. */
export async function threadStatus(runner: Runner, id: string): Promise<ThreadRow> {
  const { liveHolder } = await import("@united-workforce/engine");
  const pointer = await readPointer(runner, id);
  const holder = await liveHolder(runner.store, id);
  return toRow({ id, pointer, problem: null, running: holder !== null });
}

export interface StepView {
  number: number;
  hash: string;
  role: string;
  status: string;
  agent: string;
  startedAt: string;
  durationMs: number;
  usage: Usage;
  output: Record<string, unknown>;
  attempts: number;
}

export interface ThreadView {
  row: ThreadRow;
  pointer: ThreadPointer;
  startPrompt: string;
  steps: StepView[];
  /** The role that runs next: routed when idle, the one `thread resume` runs when suspended. */
  nextRole: string | null;
  /** Its fork family (the engine's `forkTree`): every thread sharing its StartNode. */
  tree: ThreadTreeDocument;
}

export async function threadView(
  runner: Runner,
  id: string,
  families?: FamilyIndex,
): Promise<ThreadView> {
  const { forkTree, walkBack } = await import("@united-workforce/engine");
  const row = await threadStatus(runner, id);
  const pointer = await readPointer(runner, id);
  const { cas } = runner.store;
  const start = await cas.getPayload<{ prompt: string }>(pointer.start, "start");
  const steps: StepView[] = [];
  for await (const { hash, step } of walkBack(
    cas,
    pointer.head === pointer.start ? null : pointer.head,
  )) {
    steps.push(await stepView(runner, hash, step));
  }
  steps.reverse();
  steps.forEach((s, i) => {
    s.number = i + 1;
  });
  // What `thread show` says runs next: the routed role when idle, the one resume runs when
  // suspended.
  let nextRole: string | null = null;
  if (row.status === "idle" || row.status === "suspended") {
    try {
      nextRole = (await runner.next(pointer))?.role ?? null;
    } catch {
      nextRole = null;
    }
  }
  return {
    row,
    pointer,
    startPrompt: start.prompt,
    steps,
    nextRole,
    tree: await forkTree(families?.store() ?? runner.store, id),
  };
}

async function stepView(runner: Runner, hash: string, step: StepPayload): Promise<StepView> {
  const { entry, output } = await stepListEntry(runner.store.cas, hash, step);
  return { number: 0, ...entry, output, attempts: step.attempts };
}

export interface StepDetail {
  thread: string;
  step: StepView;
  edgePrompt: string;
  body: string;
  prompt: string;
  cwd: string;
  prev: string | null;
}

/** A step of a thread: its output, body and the exact prompt its agent received. */
export async function stepDetail(runner: Runner, id: string, hash: string): Promise<StepDetail> {
  const { readStep } = await import("@united-workforce/engine");
  const pointer = await readPointer(runner, id);
  if (!HASH.test(hash)) throw notFound("STEP_NOT_FOUND", `"${hash}" is not a step hash`);
  const step = await readStep(runner.store.cas, hash);
  if (step.start !== pointer.start)
    throw notFound("STEP_NOT_FOUND", `step ${hash} is not a step of thread ${id}`);
  const { cas } = runner.store;
  return {
    thread: id,
    step: await stepView(runner, hash, step),
    edgePrompt: step.edgePrompt,
    body: await cas.getText(step.body),
    prompt: await cas.getText(step.assembledPrompt),
    cwd: step.cwd,
    prev: step.prev,
  };
}

export interface WorkflowRow {
  name: string;
  hash: string;
  updatedAt: string;
  versions: number;
  description: string;
}

export async function listWorkflows(
  runner: Runner,
): Promise<{ rows: WorkflowRow[]; problems: { name: string; problem: string }[] }> {
  const { entries, problems } = await runner.store.registry.scan();
  const rows: WorkflowRow[] = [];
  for (const entry of entries) {
    let description = "";
    try {
      description = (await runner.workflow(entry.current)).description ?? "";
    } catch {
      description = "";
    }
    rows.push({
      name: entry.name,
      hash: entry.current,
      updatedAt: entry.history[0]?.at ?? "",
      versions: entry.history.length,
      description,
    });
  }
  rows.sort((a, b) => a.name.localeCompare(b.name));
  return { rows, problems: problems.map((p) => ({ name: p.name, problem: p.problem })) };
}

export interface WorkflowView {
  name: string;
  hash: string;
  /** The registered current version, when this name is registered. */
  current: string | null;
  payload: WorkflowPayload;
  schemas: Record<string, unknown>;
  history: { hash: string; at: string }[];
}

/**
 * A workflow by name, at its registered current version or at `version` (a hash: a thread
 * links to the version it is pinned to, which may never have been registered).
 */
export async function workflowView(
  runner: Runner,
  name: string,
  version: string | null,
): Promise<WorkflowView> {
  const entry = await runner.store.registry.get(name);
  if (version !== null && !HASH.test(version))
    throw notFound("WORKFLOW_NOT_FOUND", `"${version}" is not a workflow hash`);
  const hash = version ?? entry?.current;
  if (hash === undefined)
    throw notFound("WORKFLOW_NOT_FOUND", `no workflow named "${name}" is registered`);
  const payload = await runner.workflow(hash);
  if (payload.name !== name)
    throw notFound("WORKFLOW_NOT_FOUND", `${hash} is workflow ${payload.name}, not ${name}`);
  const schemas: Record<string, unknown> = {};
  for (const [role, def] of Object.entries(payload.roles)) {
    schemas[role] = await runner.store.cas.getPayload(def.frontmatter);
  }
  return {
    name,
    hash,
    current: entry?.current ?? null,
    payload,
    schemas,
    history: entry?.history ?? [],
  };
}

async function readPointer(runner: Runner, id: string): Promise<ThreadPointer> {
  if (!THREAD_ID.test(id)) throw notFound("THREAD_NOT_FOUND", `"${id}" is not a thread id`);
  return runner.store.threads.get(id);
}

function notFound(
  code: "THREAD_NOT_FOUND" | "STEP_NOT_FOUND" | "WORKFLOW_NOT_FOUND",
  message: string,
): UwfError {
  return new UwfError(code, message, { hint: "Go back to the list and pick one there." });
}
