import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  type JsonValue,
  SCHEMA_TYPE,
  type StartPayload,
  startNodeKind,
  type ThreadPointer,
  type WorkflowPayload,
  type WorkflowTestDocument,
  type WorkflowTestThread,
} from "@united-workforce/protocol";
import type { Cas, CasWrite, Store } from "@united-workforce/store";
import { type EventStream, isoTime, newUlid } from "@united-workforce/util";
import { childrenByParent } from "../history/bundle.js";
import { importBundle } from "../history/import-bundle.js";
import { type RecordedStep, readRecording } from "../history/recordings.js";
import { Router } from "../moderator/router.js";
import type { RunContext } from "../steps/context.js";
import { takeThread } from "../threads/lease.js";
import { runSteps } from "./run-loop.js";
import { terminalReason } from "./stop-reasons.js";

/** A recording to test against: a bundle's text, and what to call it in the report. */
export interface WorkflowTestSource {
  origin: string;
  bundle: string;
}

export interface WorkflowTestOptions {
  /** An empty store of its own (a temporary fs store): the recordings are imported here. */
  scratch: Store;
  /** Where the workflow under test is stored (the user's store, or `scratch` itself). */
  workflowCas: Cas;
  workflowHash: string;
  sources: readonly WorkflowTestSource[];
  /** The uwf-replay command (`uwf-replay`, or a path); `--from` for each recording is added. */
  replayCommand: string;
  /** The caller's directory (a relative replay command resolves against it). */
  cwd: string;
  /** The environment adapters start with; the scratch store is forced on them. */
  env: Record<string, string | undefined>;
  /** Where the replays' events go (the process log, progress). */
  events: EventStream;
  signal: AbortSignal;
}

/**
 * `uwf workflow test`: run each recorded thread again through the workflow under test, with
 * uwf-replay answering every agent step from the recordings (no model is called), in the
 * scratch store only, and compare the two routes (the roles and statuses, step by step).
 */
export async function testWorkflow(options: WorkflowTestOptions): Promise<WorkflowTestDocument> {
  const { scratch } = options;
  const imported: { origin: string; thread: string }[] = [];
  for (const source of options.sources) {
    // The scratch copies never run (replays are new threads, in the recorded cwd): any cwd does.
    const report = await importBundle(scratch, source.bundle, { cwd: options.cwd });
    for (const { thread } of report.threads) {
      // The same thread named twice (by id and in a bundle) is tested once.
      if (!imported.some((r) => r.thread === thread))
        imported.push({ origin: source.origin, thread });
    }
  }
  // Fan-out children are not tested on their own: their parent's replay makes its own children,
  // which are compared with the recorded ones. Their steps still answer the replay.
  const recordedChildren = await childrenByParent(scratch);
  const isChild = new Set(
    imported.flatMap((r) => recordedChildren.get(r.thread) ?? []).map((child) => child.thread),
  );
  const recorded = imported.filter((r) => !isChild.has(r.thread));
  await copyReachable(options.workflowCas, scratch.cas, options.workflowHash);
  const workflow = await scratch.cas.getPayload<WorkflowPayload>(options.workflowHash, "workflow");
  const fromArgs = imported.map((r) => ` --from ${r.thread}`).join("");
  const work = join(scratch.home, "work");
  mkdirSync(work, { recursive: true });
  // Each tested thread, and what its children are compared with once every replay has run.
  const tested: { result: WorkflowTestThread; family: Family | null }[] = [];
  for (const [i, { origin, thread }] of recorded.entries()) {
    const recording = await readRecording(scratch, thread, origin);
    const reportFile = join(scratch.home, `replay-${i + 1}.jsonl`);
    const run: RunContext = {
      store: scratch,
      router: new Router(scratch.cas),
      cwd: options.cwd,
      config: () => ({}),
      env: { ...options.env, UWF_STORE: "fs", UWF_REPLAY_REPORT: reportFile },
      events: options.events,
      signal: options.signal,
    };
    const replay = await startReplay(
      scratch,
      recording.pointer,
      options.workflowHash,
      workflow,
      work,
    );
    const lease = await takeThread(scratch, replay, "uwf workflow test");
    let summary: Awaited<ReturnType<typeof runSteps>>;
    try {
      // One step past the recording when it completed: a workflow that no longer ends there
      // shows where it goes next.
      const done = recording.pointer.status === "completed";
      summary = await runSteps(run, replay, {
        count: Math.max(1, recording.steps.length + (done ? 1 : 0)),
        agentFlag: `${options.replayCommand}${fromArgs}`,
        lease,
      });
    } finally {
      await lease.release();
    }
    if (options.signal.aborted) break;
    const replayed = await readRecording(scratch, replay, "replay");
    const reports = lastReports(reportFile);
    tested.push({
      result: compare({
        thread,
        origin,
        recorded: recording.steps,
        recordedStatus: recording.pointer.status,
        replayThread: replay,
        replayed: replayed.steps,
        replayPointer: summary.pointer,
        message: summary.message,
        lastReport: reports.get(replay) ?? null,
      }),
      family: recordedChildren.has(thread)
        ? { origin, recorded: recording, replayed, reports, message: summary.message }
        : null,
    });
  }
  // One pass over the scratch store finds the children every replay made.
  const children = tested.some((t) => t.family !== null)
    ? await childrenByParent(scratch)
    : new Map<string, ThreadPointer[]>();
  const threads: WorkflowTestThread[] = [];
  for (const { result, family } of tested) {
    threads.push(result);
    if (family !== null) threads.push(...(await compareChildren(scratch, children, family)));
  }
  return {
    workflow: workflow.name,
    workflowHash: options.workflowHash,
    ok: threads.every((t) => t.result === "same"),
    threads,
  };
}

type Recording = Awaited<ReturnType<typeof readRecording>>;

/** A recorded thread and its replay, whose fan-out children are to be compared. */
interface Family {
  origin: string;
  recorded: Recording;
  replayed: Recording;
  /** uwf-replay's last report for each thread of the replayed family. */
  reports: Map<string, Record<string, unknown>>;
  /** Why the replay of the top thread stopped: for a child whose own state says nothing. */
  message: string;
}

/**
 * The recorded children of a parent compared with those its replay made, paired by the step
 * of the parent they fanned out after (by its number: the replay's steps have other hashes) and
 * their item; then their own children, depth first. A recorded child without a replayed twin,
 * or a replayed one without a recorded twin, is a different route.
 */
async function compareChildren(
  store: Store,
  children: Map<string, ThreadPointer[]>,
  pair: Family,
): Promise<WorkflowTestThread[]> {
  const key = (child: ThreadPointer, parent: Recording): string => {
    const at = child.parent!.step;
    const stepNumber =
      at === parent.pointer.start ? 0 : parent.steps.findIndex((s) => s.hash === at) + 1;
    return `${stepNumber}/${child.parent!.index}`;
  };
  const replayedByKey = new Map(
    (children.get(pair.replayed.pointer.thread) ?? []).map((child) => [
      key(child, pair.replayed),
      child,
    ]),
  );
  const recordedChildren = childrenOf(children, pair.recorded.pointer.thread);
  const results: WorkflowTestThread[] = [];
  for (const child of recordedChildren) {
    const parent = { thread: pair.recorded.pointer.thread, index: child.parent!.index };
    const twin = replayedByKey.get(key(child, pair.recorded));
    if (twin === undefined) {
      const reason = `the replay of its parent made no child for item ${child.parent!.index} of this fan-out`;
      const side = { kind: "recorded", origin: pair.origin } as const;
      results.push(...(await unmatched(store, children, side, child, parent, reason)));
      continue;
    }
    const recorded = await readRecording(store, child.thread, pair.origin);
    const replayed = await readRecording(store, twin.thread, "replay");
    results.push({
      ...compare({
        thread: child.thread,
        origin: pair.origin,
        recorded: recorded.steps,
        recordedStatus: recorded.pointer.status,
        replayThread: twin.thread,
        replayed: replayed.steps,
        replayPointer: replayed.pointer,
        // Why the child stopped is its own state's to say; the top's run says the rest.
        message: terminalReason(replayed.pointer)?.message ?? pair.message,
        lastReport: pair.reports.get(twin.thread) ?? null,
      }),
      parent,
    });
    results.push(...(await compareChildren(store, children, { ...pair, recorded, replayed })));
  }
  // Children the replay made that have no recorded twin: the workflow now fans out over more.
  const recordedKeys = new Set(recordedChildren.map((child) => key(child, pair.recorded)));
  for (const [childKey, extra] of replayedByKey) {
    if (recordedKeys.has(childKey)) continue;
    const parent = { thread: pair.recorded.pointer.thread, index: extra.parent!.index };
    const reason = `the recording has no child for item ${extra.parent!.index} of this fan-out`;
    const side = { kind: "replayed" } as const;
    results.push(...(await unmatched(store, children, side, extra, parent, reason)));
  }
  return results;
}

/** A parent's children in the order they were made (by time, then item). */
function childrenOf(children: Map<string, ThreadPointer[]>, parent: string): ThreadPointer[] {
  return [...(children.get(parent) ?? [])].sort(
    (a, b) => a.createdAt.localeCompare(b.createdAt) || a.parent!.index - b.parent!.index,
  );
}

/**
 * A child with no twin on the other side, then its own children at any depth: each is a
 * different route, with nothing to compare it with. `side` says which side has it: a recorded
 * child the replay never made, or a child the replay made that nothing recorded.
 */
async function unmatched(
  store: Store,
  children: Map<string, ThreadPointer[]>,
  side: { kind: "recorded"; origin: string } | { kind: "replayed" },
  child: ThreadPointer,
  parent: { thread: string; index: number },
  reason: string,
): Promise<WorkflowTestThread[]> {
  const replayed = side.kind === "replayed";
  const origin = replayed ? "replay" : side.origin;
  const steps = route((await readRecording(store, child.thread, origin)).steps);
  const results: WorkflowTestThread[] = [
    {
      thread: child.thread,
      origin,
      replayThread: replayed ? child.thread : null,
      parent,
      result: "different",
      step: 1,
      reason,
      recorded: replayed ? [] : steps,
      replayed: replayed ? steps : [],
      miss: null,
    },
  ];
  const why = replayed
    ? `the recording has no twin of its parent ${child.thread}`
    : `the replay made no twin of its parent ${child.thread}`;
  for (const grandchild of childrenOf(children, child.thread)) {
    const of = { thread: child.thread, index: grandchild.parent!.index };
    results.push(...(await unmatched(store, children, side, grandchild, of, why)));
  }
  return results;
}

/** A new thread with the recorded task, prompt, inputs and cwd, but the workflow under test. */
async function startReplay(
  store: Store,
  recorded: ThreadPointer,
  workflowHash: string,
  workflow: WorkflowPayload,
  work: string,
): Promise<string> {
  const start = await store.cas.getPayload<StartPayload>(recorded.start);
  // A bundle from another machine names a folder that may not exist here: the prompt does not
  // hold the cwd, so any existing folder replays the same.
  const cwd = isDirectory(start.cwd) ? start.cwd : work;
  const now = Date.now();
  const payload: StartPayload = {
    workflow: workflowHash,
    prompt: start.prompt,
    cwd,
    createdAtMs: now,
  };
  if (start.inputs !== undefined) payload.inputs = start.inputs as Record<string, JsonValue>;
  const hash = await store.cas.put(store.cas.builtin(startNodeKind(payload)), payload);
  const at = isoTime(now);
  const pointer: ThreadPointer = {
    thread: newUlid(now),
    workflow: workflow.name,
    workflowHash,
    start: hash,
    head: hash,
    status: "idle",
    currentRole: null,
    suspended: null,
    steps: 0,
    cwd,
    createdAt: at,
    updatedAt: at,
  };
  await store.threads.create(pointer);
  return pointer.thread;
}

interface Comparison {
  thread: string;
  origin: string;
  recorded: RecordedStep[];
  recordedStatus: string;
  replayThread: string;
  replayed: RecordedStep[];
  replayPointer: ThreadPointer;
  message: string;
  lastReport: Record<string, unknown> | null;
}

/** Same route, a different one (the first step that differs, and why), a miss, or a stop. */
export function compare(c: Comparison): WorkflowTestThread {
  const base = {
    thread: c.thread,
    origin: c.origin,
    replayThread: c.replayThread,
    recorded: route(c.recorded),
    replayed: route(c.replayed),
  };
  const shared = Math.min(c.recorded.length, c.replayed.length);
  for (let i = 0; i < shared; i++) {
    const was = c.recorded[i]!;
    const now = c.replayed[i]!;
    if (was.role === now.role && was.status === now.status) continue;
    const reason =
      was.role !== now.role
        ? `${after(c.recorded, i)} the workflow now routes to \`${now.role}\` (recorded: \`${was.role}\`)`
        : `\`${now.role}\` now answers \`${now.status}\` (recorded: \`${was.status}\`)`;
    return { ...base, result: "different", step: i + 1, reason, miss: null };
  }
  const missed = c.lastReport?.kind === "miss" ? c.lastReport : null;
  const at = c.replayed.length + 1;
  if (c.replayed.length < c.recorded.length) {
    const was = c.recorded[c.replayed.length]!;
    if (missed && missed.role !== was.role) {
      const reason = `${after(c.recorded, c.replayed.length)} the workflow now routes to \`${String(missed.role)}\` (recorded: \`${was.role}\`)`;
      return { ...base, result: "different", step: at, reason, miss: null };
    }
    if (missed) {
      const reason = `no recorded step of \`${was.role}\` has the prompt it gets now`;
      return { ...base, result: "miss", step: at, reason, miss: missOf(missed) };
    }
    if (c.replayPointer.status === "completed") {
      const reason = `${after(c.recorded, c.replayed.length)} the workflow now ends (recorded: \`${was.role}\` next)`;
      return { ...base, result: "different", step: at, reason, miss: null };
    }
    const reason = `the replay stopped before \`${was.role}\`: ${c.message}`;
    return { ...base, result: "stopped", step: at, reason, miss: null };
  }
  const wentOn = c.replayed.length > c.recorded.length;
  if (wentOn || (c.recordedStatus === "completed" && c.replayPointer.status !== "completed")) {
    const next = wentOn
      ? c.replayed[c.recorded.length]!.role
      : missed
        ? String(missed.role)
        : (c.replayPointer.currentRole ?? "another role");
    const reason = `${after(c.recorded, c.recorded.length)} the recorded thread completed; the workflow now goes on to \`${next}\``;
    return { ...base, result: "different", step: c.recorded.length + 1, reason, miss: null };
  }
  return { ...base, result: "same", step: null, reason: "", miss: null };
}

/** A thread's route: its roles and statuses, step by step. */
function route(steps: RecordedStep[]): WorkflowTestThread["recorded"] {
  return steps.map((s) => ({ role: s.role, status: s.status }));
}

/** "after `reviewer` → `rejected`," (the step before index `i`), or "from the start,". */
function after(steps: RecordedStep[], i: number): string {
  if (i === 0) return "from the start,";
  const prev = steps[i - 1]!;
  return `after \`${prev.role}\` → \`${prev.status}\`,`;
}

type Miss = NonNullable<WorkflowTestThread["miss"]>;

/** The miss uwf-replay reported (its UWF_REPLAY_REPORT line). */
function missOf(report: Record<string, unknown>): Miss {
  const nearest = (report.nearest ?? null) as Miss["nearest"];
  return { role: String(report.role), prompt: String(report.prompt), nearest };
}

/**
 * The last line uwf-replay reported (UWF_REPLAY_REPORT) for each thread: a family's replays
 * share one file, and each line names the thread it answered.
 */
function lastReports(file: string): Map<string, Record<string, unknown>> {
  const last = new Map<string, Record<string, unknown>>();
  if (!existsSync(file)) return last;
  for (const text of readFileSync(file, "utf8").split("\n")) {
    try {
      const line = JSON.parse(text) as Record<string, unknown>;
      if (typeof line.thread === "string") last.set(line.thread, line);
    } catch {
      // An empty line, or one cut short (a killed replay): not a report.
    }
  }
  return last;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Copy a node and everything it reaches from one CAS to another (a stored workflow). */
async function copyReachable(from: Cas, to: Cas, root: string): Promise<void> {
  if (from === to) return;
  const writes: CasWrite[] = [];
  const seen = new Set([root]);
  const queue = [root];
  while (queue.length > 0) {
    const hash = queue.pop()!;
    const { node, bytes } = await from.read(hash);
    const refs = node.type === SCHEMA_TYPE ? [] : await from.refsOf(node);
    writes.push({ hash, bytes, type: node.type, refs });
    for (const ref of refs) {
      if (!seen.has(ref)) {
        seen.add(ref);
        queue.push(ref);
      }
    }
  }
  await to.backend.write(writes);
}
