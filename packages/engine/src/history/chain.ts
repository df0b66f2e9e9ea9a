import type { StartPayload, StepPayload } from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";
import { isUwfError, UwfError } from "@united-workforce/util";
import { ChainReadAhead } from "./batched-walk.js";

/**
 * A step node named by a user. A hash of no node, or of a node that is not a step (the
 * StartNode a `thread start` prints, an output), is a step that does not exist, with a hint to
 * where step hashes come from rather than the CAS's own wording.
 */
export async function readStep(cas: Cas, hash: string): Promise<StepPayload> {
  try {
    return await cas.getPayload<StepPayload>(hash, "step");
  } catch (error) {
    if (isUwfError(error) && (error.code === "CAS_NOT_FOUND" || error.code === "NODE_INVALID")) {
      throw new UwfError("STEP_NOT_FOUND", `no step ${hash}: ${error.message}`, {
        hint: "`uwf step list <thread>` lists a thread's steps with their hashes.",
        cause: error,
        details: { hash },
      });
    }
    throw error;
  }
}

/**
 * Steps from `from` back toward the StartNode, newest first; stop iterating to stop reading.
 * Reads ahead in stretches where the store has a round trip per read (`ChainReadAhead`).
 */
export async function* walkBack(
  cas: Cas,
  from: string | null,
): AsyncGenerator<{ hash: string; step: StepPayload }> {
  const readAhead = new ChainReadAhead(cas);
  let hash = from;
  while (hash !== null) {
    await readAhead.before(hash);
    const step = await cas.getPayload<StepPayload>(hash, "step");
    yield { hash, step };
    hash = step.prev;
  }
}

/** A recorded step with its output: what routing reads of it (reroute, rebase). */
export interface RecordedStep {
  hash: string;
  step: StepPayload;
  output: Record<string, unknown>;
}

/**
 * The steps from the StartNode to `head` (null: none), oldest first, each with its output; read
 * ahead in stretches like `walkBack`. A chain that loops is THREAD_CORRUPT.
 */
export async function readRecordedSteps(cas: Cas, head: string | null): Promise<RecordedStep[]> {
  const chain: RecordedStep[] = [];
  const seen = new Set<string>();
  const readAhead = new ChainReadAhead(cas);
  for (let hash = head; hash !== null; ) {
    if (seen.has(hash)) {
      throw new UwfError("THREAD_CORRUPT", `the chain loops back to step ${hash}`, {
        hint: "run `uwf thread verify <thread>` to see what is wrong with its history",
      });
    }
    seen.add(hash);
    await readAhead.before(hash);
    const step = await cas.getPayload<StepPayload>(hash, "step");
    const output = await cas.getPayload<Record<string, unknown>>(step.output);
    chain.push({ hash, step, output });
    hash = step.prev;
  }
  return chain.reverse();
}

/**
 * The StartNodes a thread's steps may have, newest first: the thread's own, then, for a rebased
 * thread, the start of the recorded steps it shares (`StartPayload.rebase`), and so on back. A
 * step whose `start` is none of them is another thread's.
 */
export async function threadStarts(cas: Cas, start: string): Promise<string[]> {
  const starts = [start];
  for (let hash: string | undefined = start; hash !== undefined; ) {
    hash = (await cas.getPayload<StartPayload>(hash, "start")).rebase?.start;
    if (hash !== undefined) {
      if (starts.includes(hash)) break;
      starts.push(hash);
    }
  }
  return starts;
}
