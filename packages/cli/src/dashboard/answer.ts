import type { AnswerDocument, Runner } from "@united-workforce/engine";
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
  /** Who answers a human role from this server, recorded in the step (`thread answer --by`). */
  by: string;
}

/** A human role's answer as a form sends it: the status and, by name, its fields as typed. */
export interface FormAnswer {
  status: string | null;
  fields: [string, string][];
  body: string;
}

/**
 * Answer a thread waiting for a human role: exactly `uwf thread answer <id> --status <s>
 * --set <field>=<value>… -m <body>`, by the runner in this process. Fields left empty are not
 * sent, as a flag left out; the engine types and checks the rest against the role's schema, and
 * writes nothing when the answer does not fit (that error, for the form to show).
 */
export function answerHuman(
  ctx: AnswerContext,
  thread: string,
  answer: FormAnswer,
): Promise<AnswerDocument> {
  return ctx.runner.answer(thread, {
    status: answer.status ?? undefined,
    sets: answer.fields.filter(([, value]) => value.trim() !== ""),
    body: answer.body,
    by: ctx.by,
  });
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
  return inBackground(ctx, thread, () =>
    ctx.runner.resume(thread, { answer: answer.trim() === "" ? null : answer }),
  );
}

/**
 * `uwf thread exec <id>` after a human answer, when the thread routed on to a role: the page
 * that answered moves the thread on, as answering a question does. Resolves like `answerThread`.
 */
export function runNextStep(ctx: AnswerContext, thread: string): Promise<"started" | "finished"> {
  return inBackground(ctx, thread, () => ctx.runner.exec(thread, {}));
}

/** After a human answer: the next step runs when the thread routed on to a role. */
export async function runNextIfIdle(ctx: AnswerContext, thread: string): Promise<boolean> {
  const pointer = await ctx.runner.store.threads.get(thread);
  if (pointer.status !== "idle" || (await ctx.runner.next(pointer)) === null) return false;
  await runNextStep(ctx, thread);
  return true;
}

/**
 * Start a run that goes on after the request is answered; resolves once its step has started
 * (its `step.start` event) or the run has ended, and rejects when it is refused at once.
 * Stopping the server waits for it. (`uwf mcp` starts its `thread_exec` runs the same way.)
 */
export async function inBackground(
  ctx: Pick<AnswerContext, "events" | "runs">,
  thread: string,
  start: () => Promise<unknown>,
): Promise<"started" | "finished"> {
  let stopListening = (): void => {};
  const started = new Promise<"started">((resolve) => {
    stopListening = ctx.events.subscribe((event) => {
      if (event.event === "step.start" && event.thread === thread) resolve("started");
    });
  });
  const run = start();
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
