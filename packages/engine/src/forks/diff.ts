import type {
  StepPayload,
  ThreadDiffDocument,
  ThreadDiffSide,
  ThreadDiffStep,
  ThreadPointer,
} from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { isoTime, UwfError } from "@united-workforce/util";
import { threadStarts } from "../history/chain.js";
import { addToTotal, emptyTotal } from "../usage/total.js";

/**
 * Where two threads part: the last step both chains hold, then each side's own steps with their
 * outputs and usage. Reads each chain back only to the common step (the shared prefix is read
 * once, on the second side, to find where it starts).
 */
export async function diffThreads(store: Store, a: string, b: string): Promise<ThreadDiffDocument> {
  const [left, right] = [await store.threads.get(a), await store.threads.get(b)];
  // A rebased thread shares the recorded steps it reused, which keep their start.
  const leftStarts = await threadStarts(store.cas, left.start);
  const rightStarts = await threadStarts(store.cas, right.start);
  if (!leftStarts.some((start) => rightStarts.includes(start))) {
    throw new UwfError(
      "THREADS_UNRELATED",
      `threads ${a} and ${b} share no step: they began from different starts`,
      {
        hint: `Only a thread and its forks share a prefix; see them with: uwf thread tree ${a}`,
        details: { a, b },
      },
    );
  }
  const leftChain = await chainOf(store, left);
  const leftIndex = new Map(leftChain.map((entry, i) => [entry.hash, i]));
  // Walk the right side back until it meets the left chain.
  const rightOwn: { hash: string; step: StepPayload }[] = [];
  let hash = headStep(right);
  while (hash !== null && !leftIndex.has(hash)) {
    const step = await store.cas.getPayload<StepPayload>(hash, "step");
    rightOwn.push({ hash, step });
    hash = step.prev;
  }
  const common = hash;
  const commonSteps = common === null ? 0 : leftIndex.get(common)! + 1;
  const leftOwn = leftChain.slice(commonSteps);
  rightOwn.reverse();
  const running = await store.leases.live();
  return {
    a,
    b,
    common,
    commonSteps,
    sides: [
      await side(store, left, leftOwn, commonSteps, running),
      await side(store, right, rightOwn, commonSteps, running),
    ],
  };
}

function headStep(pointer: ThreadPointer): string | null {
  return pointer.head === pointer.start ? null : pointer.head;
}

/** A thread's steps, oldest first. */
async function chainOf(
  store: Store,
  pointer: ThreadPointer,
): Promise<{ hash: string; step: StepPayload }[]> {
  const chain: { hash: string; step: StepPayload }[] = [];
  let hash = headStep(pointer);
  while (hash !== null) {
    const step = await store.cas.getPayload<StepPayload>(hash, "step");
    chain.push({ hash, step });
    hash = step.prev;
  }
  return chain.reverse();
}

async function side(
  store: Store,
  pointer: ThreadPointer,
  own: readonly { hash: string; step: StepPayload }[],
  commonSteps: number,
  running: Set<string>,
): Promise<ThreadDiffSide> {
  const steps: ThreadDiffStep[] = [];
  let usage = emptyTotal();
  for (const [i, { hash, step }] of own.entries()) {
    const output = await store.cas.getPayload<Record<string, unknown>>(step.output);
    steps.push({
      number: commonSteps + i + 1,
      hash,
      role: step.role,
      status: typeof output.$status === "string" ? output.$status : "",
      output,
      agent: step.agent,
      startedAt: isoTime(step.startedAtMs),
      durationMs: step.completedAtMs - step.startedAtMs,
      usage: step.usage,
    });
    usage = addToTotal(usage, step.usage);
  }
  return {
    thread: pointer.thread,
    head: pointer.head,
    status: running.has(pointer.thread) ? "running" : pointer.status,
    steps,
    usage,
  };
}
