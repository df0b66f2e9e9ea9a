import { createReadStream, statSync } from "node:fs";
import { resolve } from "node:path";
import { STATUS_FIELD, type StepPayload, type ThreadPointer } from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";
import { UwfError } from "@united-workforce/util";
import { openBundle } from "./bundle.js";
import { walkBack } from "./chain.js";

/** Where recorded threads are read from: a store, or a bundle opened with `openBundle`. */
export interface RecordingSource {
  cas: Cas;
  threads: { get(id: string): Promise<ThreadPointer> };
}

/** One recorded step, as `uwf-replay` and `uwf workflow test` use it. */
export interface RecordedStep {
  /** Where it was read: `thread <id>` or `<file> thread <id>`. */
  origin: string;
  thread: string;
  /** 1 for the thread's first step. */
  index: number;
  hash: string;
  role: string;
  /** The output's `$status`; "" when it has none, or was not read (`statuses: false`). */
  status: string;
  /** The edge prompt the step ran with (an answer given with `thread resume -p` ends it). */
  edgePrompt: string;
  /** The text node of the prompt the agent got (DESIGN §9: stored with every step). */
  assembledPrompt: string;
  output: string;
  body: string;
  agent: string;
}

/** A recorded thread: its steps oldest first, and the source to read their nodes from. */
export interface Recording {
  origin: string;
  pointer: ThreadPointer;
  source: RecordingSource;
  steps: RecordedStep[];
}

/** Read a thread's chain from its head back to the StartNode, and list it oldest first. */
export async function readRecording(
  source: RecordingSource,
  thread: string,
  origin: string,
  options: { statuses?: boolean } = {},
): Promise<Recording> {
  const pointer = await source.threads.get(thread);
  const chain: { hash: string; step: StepPayload }[] = [];
  for await (const link of walkBack(
    source.cas,
    pointer.head === pointer.start ? null : pointer.head,
  ))
    chain.push(link);
  chain.reverse();
  const steps: RecordedStep[] = [];
  for (const [i, { hash, step }] of chain.entries()) {
    // The status costs a read of each output: uwf-replay, which matches prompts only, skips it.
    const output =
      options.statuses === false
        ? {}
        : await source.cas.getPayload<Record<string, unknown>>(step.output);
    steps.push({
      origin,
      thread: pointer.thread,
      index: i + 1,
      hash,
      role: step.role,
      status: String(output[STATUS_FIELD] ?? ""),
      edgePrompt: step.edgePrompt,
      assembledPrompt: step.assembledPrompt,
      output: step.output,
      body: step.body,
      agent: step.agent,
    });
  }
  return { origin, pointer, source, steps };
}

/** The recorded answer for a prompt: its output object and body text, exactly as stored. */
export interface ReplayHit {
  step: RecordedStep;
  output: Record<string, unknown>;
  body: string;
}

/** A prompt to answer: its role, its text, and the hash of its text node. */
export interface PromptToReplay {
  role: string;
  text: string;
  hash: string;
}

/**
 * The first recorded step (in the order the recordings were given, oldest step first) whose
 * assembled prompt is the text node `prompt.hash`, with its output and body; else the first
 * of the same role whose prompt differs from it in thread ids only (a replay's fan-out children
 * have new ids, which the join step after them lists); null on a miss.
 */
export async function findReplay(
  recordings: readonly Recording[],
  prompt: PromptToReplay,
): Promise<ReplayHit | null> {
  const hit = async (step: RecordedStep, source: RecordingSource): Promise<ReplayHit> => {
    const output = await source.cas.getPayload<Record<string, unknown>>(step.output);
    return { step, output, body: await source.cas.getText(step.body) };
  };
  for (const recording of recordings) {
    for (const step of recording.steps)
      if (step.assembledPrompt === prompt.hash) return await hit(step, recording.source);
  }
  const masked = withoutThreadIds(prompt.text);
  if (masked === prompt.text) return null;
  for (const recording of recordings) {
    for (const step of recording.steps) {
      if (step.role !== prompt.role) continue;
      const recorded = await recording.source.cas.getText(step.assembledPrompt);
      if (withoutThreadIds(recorded) === masked) return await hit(step, recording.source);
    }
  }
  return null;
}

/** A thread id (a ULID: 26 characters of Crockford base32, a time first). */
const THREAD_ID = /\b[0-7][0-9A-HJKMNP-TV-Z]{25}\b/g;

/** `text` with every thread id in it replaced by the same placeholder. */
export function withoutThreadIds(text: string): string {
  return text.replace(THREAD_ID, "<thread>");
}

/** The recorded prompt nearest to one that missed, and where the two first differ. */
export interface NearestPrompt {
  step: RecordedStep;
  /** Lines in one prompt and not the other (a multiset difference: order is not counted). */
  differentLines: number;
  /** 1-based line number of the first difference, and the line in each prompt ("" past its end). */
  firstDifference: { line: number; recorded: string; now: string };
}

/**
 * Among recorded steps of `role`, the prompt with the fewest differing lines from `prompt`
 * (ties: the earliest given). Null when nothing of that role was recorded.
 */
export async function nearestPrompt(
  recordings: readonly Recording[],
  role: string,
  prompt: string,
): Promise<NearestPrompt | null> {
  const now = prompt.split("\n");
  let best: NearestPrompt | null = null;
  for (const recording of recordings) {
    for (const step of recording.steps) {
      if (step.role !== role) continue;
      const recorded = (await recording.source.cas.getText(step.assembledPrompt)).split("\n");
      const differentLines = lineDifference(recorded, now);
      if (best !== null && differentLines >= best.differentLines) continue;
      best = { step, differentLines, firstDifference: firstDifference(recorded, now) };
    }
  }
  return best;
}

/** How many lines are in one list and not the other, counting repeats. */
export function lineDifference(a: readonly string[], b: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const line of a) counts.set(line, (counts.get(line) ?? 0) + 1);
  for (const line of b) counts.set(line, (counts.get(line) ?? 0) - 1);
  let total = 0;
  for (const count of counts.values()) total += Math.abs(count);
  return total;
}

function firstDifference(
  recorded: readonly string[],
  now: readonly string[],
): NearestPrompt["firstDifference"] {
  const length = Math.max(recorded.length, now.length);
  for (let i = 0; i < length; i++) {
    if (recorded[i] !== now[i])
      return { line: i + 1, recorded: recorded[i] ?? "", now: now[i] ?? "" };
  }
  return { line: length, recorded: "", now: "" };
}

/**
 * The recordings `--from` names: each value is a bundle file (every thread in it) when such a
 * file exists, else a thread id of `store`. A value that is neither is a usage error.
 */
export async function openRecordings(
  from: readonly string[],
  options: { store: RecordingSource; cwd: string; validatorCacheDir: string; statuses?: boolean },
): Promise<Recording[]> {
  const read = { statuses: options.statuses ?? true };
  if (from.length === 0) {
    throw new UwfError("USAGE", "no recordings: pass --from <thread id|bundle file>", {
      hint: "name a recorded thread of this store, or a file made by `uwf thread export`",
    });
  }
  const recordings: Recording[] = [];
  for (const value of from) {
    const path = resolve(options.cwd, value);
    if (isFile(path)) {
      const bundle = await openBundle(createReadStream(path), options.validatorCacheDir);
      for (const pointer of bundle.header.threads) {
        recordings.push(
          await readRecording(bundle, pointer.thread, `${value} thread ${pointer.thread}`, read),
        );
      }
    } else if (/[\\/]|\.[a-z]+$/i.test(value)) {
      throw new UwfError("USAGE", `--from ${value}: no such file`, {
        hint: "pass a bundle made by `uwf thread export`, or a thread id",
      });
    } else {
      recordings.push(await readRecording(options.store, value, `thread ${value}`, read));
    }
  }
  return recordings;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
