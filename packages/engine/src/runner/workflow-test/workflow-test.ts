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
import { childrenByParent } from "../../history/bundle.js";
import { importBundle } from "../../history/import/import-bundle.js";
import {
  findReplay,
  type RecordedStep,
  type Recording,
  readRecording,
} from "../../history/recordings.js";
import { Router } from "../../moderator/router.js";
import type { RunContext } from "../../steps/context.js";
import type { PlannedStep } from "../../steps/planned-step.js";
import { SCRIPT_AGENT } from "../../steps/script-step.js";
import { takeThread } from "../../threads/lease.js";
import { splitGuidance, steerThread } from "../../threads/steer.js";
import { HUMAN_AGENT } from "../../workflow/step-roles.js";
import { answerThread } from "../answer.js";
import { ANSWER_NOTE, planResume } from "../plans.js";
import { runSteps } from "../run-loop.js";
import { compare } from "./compare.js";
import { compareChildren, type Family } from "./compare-children.js";

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
  const imported = await importRecordings(options);
  const scripts = scriptRecordings(scratch, imported);
  // Fan-out children are not tested on their own: their parent's replay makes its own children,
  // which are compared with the recorded ones. Their steps still answer the replay.
  const recordedChildren = await childrenByParent(scratch);
  const isChild = new Set(
    imported.flatMap((r) => recordedChildren.get(r.thread) ?? []).map((child) => child.thread),
  );
  const recorded = imported.filter((r) => !isChild.has(r.thread));
  await copyReachable(options.workflowCas, scratch.cas, options.workflowHash);
  const workflow = await scratch.cas.getPayload<WorkflowPayload>(options.workflowHash, "workflow");
  const setup: ReplaySetup = {
    workflow,
    recordedScript: async (role, text) => {
      const hash = scratch.cas.prepareText(text).hash;
      const hit = await findReplay(await scripts(), { role, text, hash });
      if (hit === null) return null;
      const { origin, thread, index: step } = hit.step;
      return {
        output: hit.output,
        body: hit.body,
        from: { origin, thread, step, hash: hit.step.hash },
      };
    },
    agentFlag: `${options.replayCommand}${imported.map((r) => ` --from ${r.thread}`).join("")}`,
    work: join(scratch.home, "work"),
  };
  mkdirSync(setup.work, { recursive: true });
  // Each tested thread, and what its children are compared with once every replay has run.
  const tested: Tested[] = [];
  for (const [i, { origin, thread }] of recorded.entries()) {
    const withChildren = recordedChildren.has(thread);
    const one = await replayThread(options, setup, { origin, thread, withChildren }, i + 1);
    if (one === null) break;
    tested.push(one);
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

/** What every replay shares: the workflow under test, the agent that replays, a spare cwd. */
interface ReplaySetup {
  workflow: WorkflowPayload;
  /** uwf-replay with a `--from` for every imported thread. */
  agentFlag: string;
  /** Where a replay runs whose recorded cwd does not exist on this machine. */
  work: string;
  /** A script step's recorded result, stored instead of running it again (any thread's). */
  recordedScript: NonNullable<RunContext["recordedScript"]>;
}

/** A tested thread, and what its children are compared with (null: it fanned out to none). */
interface Tested {
  result: WorkflowTestThread;
  family: Family | null;
}

/**
 * The script steps of every imported thread, read once when a replay first reaches a script:
 * what `recordedScript` answers from.
 */
function scriptRecordings(
  scratch: Store,
  imported: readonly { origin: string; thread: string }[],
): () => Promise<Recording[]> {
  let read: Promise<Recording[]> | null = null;
  const readAll = async (): Promise<Recording[]> => {
    const recordings: Recording[] = [];
    for (const { origin, thread } of imported) {
      const recording = await readRecording(scratch, thread, origin, { statuses: false });
      const steps = recording.steps.filter((step) => step.agent === SCRIPT_AGENT);
      if (steps.length > 0) recordings.push({ ...recording, steps });
    }
    return recordings;
  };
  return () => {
    read ??= readAll();
    return read;
  };
}

/** Import each recording into the scratch store: the threads imported, each once. */
async function importRecordings(
  options: WorkflowTestOptions,
): Promise<{ origin: string; thread: string }[]> {
  const imported: { origin: string; thread: string }[] = [];
  for (const source of options.sources) {
    // The scratch copies never run (replays are new threads, in the recorded cwd): any cwd does.
    const report = await importBundle(options.scratch, source.bundle, { cwd: options.cwd });
    for (const { thread } of report.threads) {
      // The same thread named twice (by id and in a bundle) is tested once.
      if (!imported.some((r) => r.thread === thread))
        imported.push({ origin: source.origin, thread });
    }
  }
  return imported;
}

/**
 * Replay one recorded thread (the `n`th) as a new thread of the workflow under test, and
 * compare the two routes; null when the run was interrupted.
 */
async function replayThread(
  options: WorkflowTestOptions,
  setup: ReplaySetup,
  recordedThread: { origin: string; thread: string; withChildren: boolean },
  n: number,
): Promise<Tested | null> {
  const { scratch } = options;
  const { origin, thread } = recordedThread;
  const recording = await readRecording(scratch, thread, origin);
  const reportFile = join(scratch.home, `replay-${n}.jsonl`);
  const run: RunContext = {
    store: scratch,
    router: new Router(scratch.cas),
    cwd: options.cwd,
    config: () => ({}),
    env: { ...options.env, UWF_STORE: "fs", UWF_REPLAY_REPORT: reportFile },
    events: options.events,
    signal: options.signal,
    recordedScript: setup.recordedScript,
  };
  const replay = await startReplay(
    scratch,
    recording.pointer,
    options.workflowHash,
    setup.workflow,
    setup.work,
  );
  // One step past the recording when it completed: a workflow that no longer ends there
  // shows where it goes next.
  const count =
    Math.max(1, recording.steps.length) + (recording.pointer.status === "completed" ? 1 : 0);
  const summary = await runReplay(run, replay, recording.steps, {
    count,
    agentFlag: setup.agentFlag,
  });
  if (options.signal.aborted) return null;
  const replayed = await readRecording(scratch, replay, "replay");
  const reports = lastReports(reportFile);
  return {
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
    family: recordedThread.withChildren
      ? { origin, recorded: recording, replayed, reports, message: summary.message }
      : null,
  };
}

/** How a replay's run ended: where the thread stands, and why it stopped. */
interface ReplayEnd {
  pointer: ThreadPointer;
  message: string;
}

/**
 * Run a replay up to `count` steps. Where the recorded thread waited for a person and went on,
 * the replay is answered as it was: a human role with the recorded step's output and body
 * (`thread answer`), a question with the recorded answer (`thread resume -p`); the steps
 * after run on. It stops where the recording did not go on, or went on otherwise.
 */
async function runReplay(
  run: RunContext,
  replay: string,
  recorded: readonly RecordedStep[],
  options: { count: number; agentFlag: string },
): Promise<ReplayEnd> {
  // A step the recording's thread was steered before takes the same notes in the replay: the
  // replay stops before it, is steered as the recording was, and runs on.
  const guidedFrom = (from: number): number => {
    const at = recorded.findIndex(
      (step, i) => i >= from && splitGuidance(step.edgePrompt).notes.length > 0,
    );
    return at === -1 ? Number.POSITIVE_INFINITY : at;
  };
  const runFrom = async (first?: PlannedStep): Promise<ReplayEnd> => {
    const pointer = await run.store.threads.get(replay);
    const { steps } = pointer;
    if (first === undefined && guidedFrom(steps) === steps && pointer.guidance === undefined) {
      for (const note of splitGuidance(recorded[steps]!.edgePrompt).notes)
        await steerThread(run.store, replay, note);
    }
    const lease = await takeThread(run.store, replay, "uwf workflow test");
    try {
      return await runSteps(run, replay, {
        count: Math.min(options.count, guidedFrom(steps + 1)) - steps,
        agentFlag: options.agentFlag,
        lease,
        ...(first === undefined ? {} : { first }),
      });
    } finally {
      await lease.release();
    }
  };
  let ended = await runFrom();
  for (;;) {
    const { pointer } = ended;
    const waiting = pointer.status === "suspended" ? pointer.suspended : null;
    const next = recorded[pointer.steps];
    if (run.signal.aborted || pointer.steps >= options.count) return ended;
    if (pointer.status === "idle" && guidedFrom(pointer.steps) === pointer.steps) {
      ended = await runFrom();
      continue;
    }
    if (waiting === null || next === undefined || next.role !== waiting.role) return ended;
    if (waiting.kind === "human" && next.agent === HUMAN_AGENT) {
      const answered = await answerThread(run, replay, {
        values: await run.store.cas.getPayload<Record<string, unknown>>(next.output),
        body: await run.store.cas.getText(next.body),
        by: "uwf workflow test",
      });
      const now = await run.store.threads.get(replay);
      ended = now.status === "idle" ? await runFrom() : { pointer: now, message: answered.message };
      continue;
    }
    const answer = waiting.kind === "question" ? resumeAnswerOf(next) : null;
    if (answer === null) return ended;
    ended = await runFrom(await planResume(run.router, pointer, answer));
  }
}

/**
 * The answer a recorded step was given with `thread resume -p` after a question (the end of
 * its edge prompt, as `planAnswer` writes it), or null when it ran without one.
 */
function resumeAnswerOf(step: RecordedStep): string | null {
  const heading = `\n\n## ${ANSWER_NOTE}\n`;
  const { prompt } = splitGuidance(step.edgePrompt);
  const at = prompt.lastIndexOf(heading);
  return at === -1 ? null : prompt.slice(at + heading.length);
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
