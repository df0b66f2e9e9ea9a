import type { Runner } from "@united-workforce/engine";
import { type EventStream, UwfError } from "@united-workforce/util";
import { threadStatus } from "./data/threads.js";

/** Longer answers belong in a file: `uwf thread resume <id> -p "$(cat answer.md)"`. */
export const MAX_ANSWER_BYTES = 64 * 1024;

export interface AnswerContext {
  runner: Runner;
  /** The runner's events, in this process: the answer's step is seen starting here. */
  events: EventStream;
  /** The runs this server started and that have not ended: stopping the server waits for them. */
  runs: Set<Promise<unknown>>;
}

/**
 * Answer a suspended thread: exactly `uwf thread resume <id> -p <answer>`, run by the runner in
 * this process, so the server keeps answering while the step runs. Resolves once that step has
 * started (its `step.start` event) or the run has ended; a resume refused at once (the thread
 * moved on meanwhile) is that error. Stopping the server interrupts the run, as Ctrl-C stops
 * `uwf thread resume`: the agent is stopped, the lease released, the head unchanged.
 */
export async function answerThread(
  ctx: AnswerContext,
  thread: string,
  answer: string,
): Promise<"started" | "finished"> {
  const row = await threadStatus(ctx.runner, thread);
  const pointer = await ctx.runner.store.threads.get(thread);
  if (row.status !== "suspended" || pointer.suspended === null) {
    throw new UwfError(
      "THREAD_STATE",
      `thread ${thread} is ${row.status}, not waiting for an answer`,
      {
        hint: "Reload the page to see what it is doing now.",
      },
    );
  }
  if (pointer.suspended.kind === "question" && answer.trim() === "") {
    throw new UwfError("USAGE", "the answer is empty", {
      hint: "Write your answer, then send it.",
    });
  }
  let stopListening = (): void => {};
  const started = new Promise<"started">((resolve) => {
    stopListening = ctx.events.subscribe((event) => {
      if (event.event === "step.start" && event.thread === thread) resolve("started");
    });
  });
  const run = ctx.runner.resume(thread, { answer: answer.trim() === "" ? null : answer });
  // The run goes on after the page has its answer: its end (or error) is the log's to tell.
  const tracked = run.then(
    () => {},
    () => {},
  );
  ctx.runs.add(tracked);
  void tracked.finally(() => ctx.runs.delete(tracked));
  try {
    // A failed agent suspends the thread again: the step ran, and the page shows why.
    return await Promise.race([started, run.then(() => "finished" as const)]);
  } finally {
    stopListening();
  }
}
